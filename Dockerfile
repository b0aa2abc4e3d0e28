# Image for the Prefect worker (and later the agent API): biokg with its pinned dependencies.
FROM python:3.11-slim
WORKDIR /app
COPY requirements.lock requirements-nodeps.txt pyproject.toml ./
RUN pip install --no-cache-dir -r requirements.lock && pip install --no-cache-dir --no-deps -r requirements-nodeps.txt
COPY . .
RUN pip install --no-cache-dir --no-deps .
