-- grain: one row per run of a lab series campaign (manifest params.lab_runs)
-- Each run's prefill, decode and KV snapshot as the head's llama-server logged them, found by
-- the run's three task ids: the prefill task's prompt eval, the decode task's eval (its step
-- time = eval time / tokens) and the prompt-cache update logged between the decode task's
-- timing and the snapshot task's (the copy of the slot's KV that the new prompt caused).
-- A task id is read from one log file only (the last by path that holds it), never mixed.
with runs as (
    select
        c.campaign,
        c.params->>'lab_series' as series,
        r.run, r.round, r.position, r.rate_mbit, r.link as link_id,
        r.prefill_task, r.decode_task, r.snapshot_task
    from stg_raw__campaigns as c,
        unnest(json_transform(c.params->'lab_runs',
            '[{"run": "BIGINT", "round": "BIGINT", "position": "BIGINT", "rate_mbit": "BIGINT",
               "link": "VARCHAR", "prefill_task": "BIGINT", "decode_task": "BIGINT",
               "snapshot_task": "BIGINT"}]')) as u(r)
    where c.kind = 'lab_series'
),
journal as (
    select * from stg_deployment__journal
),
task_file as (
    select campaign, task_id, max(source_file) as source_file
    from journal
    where task_id is not null and event in ('prompt_eval', 'eval')
    group by all
),
tasks as (
    select
        journal.campaign,
        journal.source_file,
        journal.task_id,
        max(journal.duration_s) filter (where journal.event = 'prompt_eval') as prompt_eval_s,
        max(journal.tokens) filter (where journal.event = 'prompt_eval') as prompt_eval_tokens,
        max(journal.source_line) filter (where journal.event = 'prompt_eval') as prompt_eval_line,
        max(journal.duration_s) filter (where journal.event = 'eval') as eval_s,
        max(journal.tokens) filter (where journal.event = 'eval') as eval_tokens,
        max(journal.source_line) filter (where journal.event = 'eval') as eval_line
    from journal
    join task_file as f using (campaign, source_file, task_id)
    group by all
),
updates as (
    select campaign, source_file, source_line, duration_s
    from journal
    where event = 'cache_update_done'
),
saves as (
    select campaign, source_file, source_line, tokens as saved_tokens
    from journal
    where event = 'prompt_save'
),
joined as (
    select
        runs.*,
        p.source_file as journal_file,
        p.prompt_eval_s as prefill_s,
        p.prompt_eval_tokens as prefill_tokens,
        d.eval_s as decode_s,
        d.eval_tokens as decode_tokens,
        d.eval_line as decode_eval_line,
        s.prompt_eval_line as snapshot_line
    from runs
    left join tasks as p on p.campaign = runs.campaign and p.task_id = runs.prefill_task
    left join tasks as d on d.campaign = runs.campaign and d.task_id = runs.decode_task
        and d.source_file = p.source_file
    left join tasks as s on s.campaign = runs.campaign and s.task_id = runs.snapshot_task
        and s.source_file = p.source_file
),
snapshot as (
    -- the largest update between the decode's timing and the snapshot task's (there is one
    -- when the run went as planned)
    select
        joined.campaign, joined.run,
        max(u.duration_s) as snapshot_s,
        max(u.source_line) as snapshot_update_line
    from joined
    join updates as u on u.campaign = joined.campaign and u.source_file = joined.journal_file
        and u.source_line > joined.decode_eval_line and u.source_line < joined.snapshot_line
    group by all
),
snapshot_tokens as (
    select snapshot.campaign, snapshot.run, max(sv.saved_tokens) as snapshot_tokens
    from snapshot
    join joined using (campaign, run)
    join saves as sv on sv.campaign = joined.campaign and sv.source_file = joined.journal_file
        and sv.source_line > joined.decode_eval_line and sv.source_line < snapshot.snapshot_update_line
    group by all
),
final as (
    select
        joined.campaign,
        joined.series,
        joined.run,
        joined.round,
        joined.position,
        joined.rate_mbit,
        joined.link_id,
        joined.journal_file,
        joined.prefill_task,
        joined.prefill_tokens,
        joined.prefill_s,
        joined.prefill_tokens / joined.prefill_s as prefill_tokens_per_s,
        joined.decode_task,
        joined.decode_tokens,
        joined.decode_s,
        joined.decode_s / joined.decode_tokens as decode_step_s,
        joined.snapshot_task,
        snapshot_tokens.snapshot_tokens,
        snapshot.snapshot_s,
        snapshot.snapshot_update_line
    from joined
    left join snapshot using (campaign, run)
    left join snapshot_tokens using (campaign, run)
)
select * from final
order by campaign, run
