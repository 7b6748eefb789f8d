-- grain: one row per llama-server log line (journal entry or line of a text log)
-- Time of a line: the journal's own timestamp; for a plain text log written with
-- --log-timestamps, the manifest's log_started (ISO time or Unix seconds) plus the line's offset
-- since the server started. A text log without either has no time: its rates still come from
-- the timing block, but its windows cannot be matched with netdev captures.
with source as (
    select * from raw_journal
),
files as (
    select source_file, context from raw_files
),
anchored as (
    select
        source.*,
        coalesce(try_cast(files.context->>'log_started' as double),
                 epoch(try_cast(files.context->>'log_started' as timestamptz))) as log_started_unix_s
    from source
    left join files on files.source_file = source.source_file
),
renamed as (
    select
        campaign,
        source_file,
        source_line,
        coalesce(us_to_s(realtime_us), log_started_unix_s + log_rel_s) as unix_s,
        hostname,
        unit,
        message,
        event,
        slot_id,
        task_id,
        ms_to_s(ms) as duration_s,
        tokens,
        accepted,
        generated,
        state_mib,
        mean_len,
        count,
        drafts,
        spec_type,
        endpoint
    from anchored
)
select * from renamed
order by campaign, unix_s, source_file, source_line
