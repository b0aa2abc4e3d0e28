// How many Drug nodes the graph holds (part of the cached Drug index's key).
MATCH (d:Drug)
RETURN count(d) AS drugs
