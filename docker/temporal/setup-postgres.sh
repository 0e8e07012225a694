#!/bin/sh
# Temporal's two databases on PostgreSQL, each brought up to the schema of the server's version with
# the server's own SQL tool. docker-compose.yml's temporal-schema service runs it in the admin-tools
# image; the real test tier (test/kit/real-temporal.ts) runs it with the tool and schemas it built.
# Safe to run again: an existing database is kept, its schema upgraded in place.
#   POSTGRES_SEEDS, DB_PORT (5432), POSTGRES_USER, POSTGRES_PWD: the server and a role that may create databases;
#   DBNAME (temporal), VISIBILITY_DBNAME (temporal_visibility): the databases, as the server image names them;
#   SQL_TOOL (temporal-sql-tool), SCHEMA_DIR (/etc/temporal/schema/postgresql/v12): the tool and schemas.
set -eu
tool="${SQL_TOOL:-temporal-sql-tool}"
schema="${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

sql() {
  "$tool" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  db="${pair%%:*}"
  sql --db "$db" create-database
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$schema/${pair#*:}/versioned"
done
