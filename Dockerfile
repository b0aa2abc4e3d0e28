# Image for the Prefect worker (and later the agent API): biokg with its pinned dependencies.
FROM python:3.11-slim
WORKDIR /app
COPY requirements.lock pyproject.toml ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN pip install --no-cache-dir --no-deps .
