-- grain: one row per llama-server journal entry
with source as (
    select * from raw_journal
),
final as (
    select
        campaign,
        source_file,
        source_line,
        realtime_us / 1e6 as unix_s,
        hostname,
        unit,
        message,
        event,
        slot_id,
        task_id,
        ms / 1000 as duration_s,
        tokens,
        accepted,
        generated,
        state_mib
    from source
)
select * from final
order by campaign, unix_s, source_line
