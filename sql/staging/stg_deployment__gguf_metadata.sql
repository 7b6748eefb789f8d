-- grain: one row per campaign and GGUF metadata key
-- GGUF keys are namespaced by architecture (qwen35.embedding_length); the arch prefix is
-- split off here so that later models ask for "embedding_length" whatever the model family.
with source as (
    select * from raw_gguf
),
arch as (
    select source_file, value as architecture
    from source
    where key = 'general.architecture'
),
renamed as (
    select
        source.campaign,
        source.source_file,
        source.source_line,
        arch.architecture,
        source.key,
        case when starts_with(source.key, arch.architecture || '.')
             then substr(source.key, length(arch.architecture) + 2)
             else source.key end as arch_key,
        source.value_type,
        source.value
    from source
    left join arch on arch.source_file = source.source_file
)
select * from renamed
order by campaign, key
