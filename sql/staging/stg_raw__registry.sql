-- grain: one row per raw file the ingest runner met (parsed, unchanged or quarantined)
-- The registry of files seen: each file's parser, status and reason, the one way marts and
-- intermediate models reach ingest_registry.
with source as (
    select * from ingest_registry
),
renamed as (
    select * from source
)
select * from renamed
