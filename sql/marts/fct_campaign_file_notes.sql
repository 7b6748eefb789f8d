-- grain: one row per file of the campaign that was not ingested, ingested without a value, or only partly read
-- key: campaign, source_file, status
-- What a campaign page says about its own files: not listed, missing, refused, duplicate,
-- quarantined by its parser (with the file:line reason), a ping that got no reply, or a log
-- whose last line was cut; and a choice the figures make (an anchor task in several journals).
-- column source_file: the file the note is about, relative to raw_data/
-- column status: what happened to the file: its scan status (unlisted, missing, refused,
--    bad_name, duplicate), its parser's (quarantined), or no value, partly read,
--    cut short, choice, not used / partly used (an nccl-tests log the pair tables do not read
--    or read in part)
-- column detail: why, in words; a parser's reason names the file and line
with files as (
    select * from stg_raw__files
),
registry as (
    select * from stg_raw__registry
),
not_used as (
    select
        files.campaign,
        files.source_file,
        coalesce(registry.status, files.manifest_status) as status,
        coalesce(registry.reason, files.reason) as detail
    from files
    left join registry on registry.source_file = files.source_file
    where files.manifest_status <> 'listed' or registry.status <> 'ok'
),
no_reply as (
    select
        p.campaign,
        p.source_file,
        'no value' as status,
        'ping got no reply to ' || p.packets_transmitted || ' packet(s); the RTT is not measured'
            as detail
    from stg_raw__ping_runs as p
    where p.packets_received = 0
),
blob_lines as (
    -- journalctl printed "[123B blob data]" for a message that was not printable (a llama.cpp
    -- progress line starting with \r, builds before Dec 2024): its bytes are not in the export
    select
        j.campaign,
        j.source_file,
        'partly read' as status,
        count(*) || ' line(s) journald exported as blob data without their bytes (first at line '
            || min(j.source_line) || '); export with `journalctl -o json` to keep them' as detail
    from stg_raw__journal_lines as j
    where j.event = 'unreadable'
    group by all
),
cut_lines as (
    -- the log's last line has no newline: the file was cut while being written (copied from a
    -- running server); the line is kept and none of its numbers is read
    select
        j.campaign,
        j.source_file,
        'cut short' as status,
        'the last line (' || j.source_line || ') ends without a newline: the file was cut while '
            || 'being written; that line is kept but not read' as detail
    from stg_raw__journal_lines as j
    where j.event = 'truncated'
),
anchor_tasks as (
    select campaign, try_cast(params->>'prefill_task' as bigint) as task_id, 'prefill' as anchor
    from stg_raw__campaigns where kind = 'deployment'
    union all
    select campaign, try_cast(params->>'decode_task' as bigint), 'decode'
    from stg_raw__campaigns where kind = 'deployment'
),
anchor_files as (
    select a.campaign, a.task_id, string_agg(distinct a.anchor, ' and ' order by a.anchor) as anchors,
           count(distinct j.source_file) as n_files,
           string_agg(distinct j.source_file, ', ' order by j.source_file) as file_list,
           max(j.source_file) as chosen
    from anchor_tasks as a
    join stg_deployment__journal as j on j.campaign = a.campaign and j.task_id = a.task_id
    group by a.campaign, a.task_id
    having count(distinct j.source_file) > 1
),
several_files as (
    -- a choice the figures make that the reader should know of
    select
        campaign,
        chosen as source_file,
        'choice' as status,
        'task ' || task_id || ' (the ' || anchors || ' task of the manifest) is in ' || n_files
            || ' journal files (' || file_list || '); the figures read ' || chosen
            || ', the last by path. Keep only the measured run''s journal in the campaign, or '
            || 'give a task id that is in one file' as detail
    from anchor_files
),
nccl_rows as (
    select campaign, unnest(source_files) as source_file, collective, size_bytes, is_chosen
    from int_p2p__pair_nccl
),
nccl_unused as (
    -- an nccl-tests log of a region pair that the pair tables do not read, or read in part
    select
        campaign,
        source_file,
        case when bool_or(is_chosen) then 'partly used' else 'not used' end as status,
        case
            when bool_or(is_chosen) then 'its size(s) '
                || string_agg(distinct format_bytes(size_bytes), ', ' order by format_bytes(size_bytes))
                       filter (where not is_chosen)
                || ' are not in the pair tables, which take one size per pair: '
                || format_bytes(max(size_bytes) filter (where is_chosen))
                || ' (the size params.sizes_bytes declares, else the largest measured)'
            when max(collective) is null then 'the log does not say which collective it ran '
                || '(nccl-tests before 2.13 prints no "Collective test starting" line) and the '
                || 'manifest names none: give the file context.collective: sendrecv'
            else 'the log is of ' || max(collective) || ' (' || max(collective)
                || '_perf), not sendrecv: the point-to-point tables read sendrecv only'
        end as detail
    from nccl_rows
    group by campaign, source_file
    having not bool_and(is_chosen)
),
final as (
    select * from not_used
    union all
    select * from no_reply
    union all
    select * from blob_lines
    union all
    select * from cut_lines
    union all
    select * from several_files
    union all
    select * from nccl_unused
)
select * from final
order by campaign, source_file
