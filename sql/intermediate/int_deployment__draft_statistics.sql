-- grain: one row per campaign whose decode task is followed by draft statistics in its log
-- llama-server prints its speculative statistics ("statistics <type>: … #gen drafts = N, …
-- #gen tokens = M", common/speculative.cpp) after each task's draft acceptance line. They count
-- since the server started, summed over every task and slot, so what one task drafted is a
-- line's increase over the previous line of the same type in the same log (a line that is lower
-- than the one before it follows a restart and counts from zero). The increase is the decode
-- task's own only when its drafted tokens equal the task's "N generated": then its drafts are
-- the task's verify steps. Otherwise only the server's mean draft length is known. A task's
-- statistics are the lines between its draft acceptance line and the next llama-server event.
with runs as (
    select campaign, decode_task, decode_journal_file
    from int_deployment__journal_runs
    where decode_task is not null
),
journal as (
    select campaign, source_file, source_line, event, task_id, spec_type, drafts, generated
    from stg_deployment__journal
    where event is not null
),
counted as (
    select
        *,
        case when generated < lag(generated) over w or drafts < lag(drafts) over w
             then drafts else drafts - coalesce(lag(drafts) over w, 0) end as drafts_since,
        case when generated < lag(generated) over w or drafts < lag(drafts) over w
             then generated else generated - coalesce(lag(generated) over w, 0) end as generated_since
    from journal
    where event = 'spec_statistics'
    window w as (partition by campaign, source_file, spec_type order by source_line)
),
acceptance as (
    select
        runs.campaign,
        runs.decode_journal_file as source_file,
        max(journal.source_line) as acceptance_line
    from runs
    join journal on journal.campaign = runs.campaign
        and journal.source_file = runs.decode_journal_file
        and journal.task_id = runs.decode_task
        and journal.event = 'draft_acceptance'
    group by all
),
bounded as (
    select
        acceptance.*,
        (select min(j.source_line) from journal j
         where j.campaign = acceptance.campaign and j.source_file = acceptance.source_file
           and j.event <> 'spec_statistics' and j.source_line > acceptance.acceptance_line)
            as next_event_line
    from acceptance
),
final as (
    select
        bounded.campaign,
        bounded.source_file as statistics_file,
        min(counted.source_line) as statistics_line,
        sum(counted.drafts_since) as task_drafts,
        sum(counted.generated_since) as task_drafted_tokens,
        sum(counted.drafts) as server_drafts,
        sum(counted.generated) as server_drafted_tokens,
        sum(counted.generated) / nullif(sum(counted.drafts), 0) as server_tokens_per_draft
    from bounded
    join counted on counted.campaign = bounded.campaign
        and counted.source_file = bounded.source_file
        and counted.source_line > bounded.acceptance_line
        and (bounded.next_event_line is null or counted.source_line < bounded.next_event_line)
    group by all
)
select * from final
order by campaign
