-- grain: one row per campaign with an anchor task (manifest params.prefill_task / decode_task)
-- The anchor tasks as llama-server logged them. Prefill window: from the task's "new prompt"
-- line for the prompt eval time it reports (t_prompt_processing starts when the slot starts on
-- the prompt). Builds that log "new prompt" only at trace level leave the timing block: it is
-- printed when the task ends, after the prompt eval time and then the eval (decode) time, so
-- the prefill ended eval time before it and started prompt eval time before that. Decode
-- window: the timing block is printed as the task ends, so its eval (decode) ran for the eval
-- time up to that line.
with anchors as (
    select
        campaign,
        try_cast(params->>'prefill_task' as bigint) as prefill_task,
        try_cast(params->>'decode_task' as bigint) as decode_task
    from stg_raw__campaigns
    where kind = 'deployment'
),
journal as (
    select * from stg_deployment__journal
),
anchor_file as (
    -- a task id can be in several journal files (the server restarted and counted from 0
    -- again): the figures come from one file, the last by path, never mixed across files
    -- (fct_campaign_file_notes names the others)
    select anchors.campaign, journal.task_id, max(journal.source_file) as source_file
    from anchors
    join journal on journal.campaign = anchors.campaign
        and journal.task_id in (anchors.prefill_task, anchors.decode_task)
    group by all
),
prefill as (
    select
        anchors.campaign,
        anchors.prefill_task,
        max(journal.source_file) as journal_file,
        min(journal.unix_s) filter (where journal.event = 'new_prompt') as new_prompt_unix_s,
        max(journal.tokens) filter (where journal.event = 'new_prompt') as prompt_tokens,
        max(journal.unix_s) filter (where journal.event = 'prompt_eval') as timing_unix_s,
        max(journal.duration_s) filter (where journal.event = 'prompt_eval') as prefill_s,
        max(journal.tokens) filter (where journal.event = 'prompt_eval') as prefill_tokens,
        max(journal.duration_s) filter (where journal.event = 'eval') as task_eval_s,
        max(journal.source_line) filter (where journal.event = 'prompt_eval') as prompt_eval_line
    from anchors
    join anchor_file as f on f.campaign = anchors.campaign and f.task_id = anchors.prefill_task
    join journal on journal.campaign = anchors.campaign and journal.task_id = anchors.prefill_task
        and journal.source_file = f.source_file
    group by all
),
decode as (
    select
        anchors.campaign,
        anchors.decode_task,
        max(journal.source_file) as decode_journal_file,
        max(journal.duration_s) filter (where journal.event = 'eval') as decode_s,
        max(journal.unix_s) filter (where journal.event = 'eval') as eval_line_unix_s,
        max(journal.tokens) filter (where journal.event = 'eval') as decode_tokens,
        max(journal.accepted) filter (where journal.event = 'draft_acceptance') as draft_accepted,
        max(journal.generated) filter (where journal.event = 'draft_acceptance') as draft_generated,
        max(journal.mean_len) filter (where journal.event = 'draft_acceptance') as draft_mean_len,
        max(journal.source_line) filter (where journal.event = 'eval') as eval_line
    from anchors
    join anchor_file as f on f.campaign = anchors.campaign and f.task_id = anchors.decode_task
    join journal on journal.campaign = anchors.campaign and journal.task_id = anchors.decode_task
        and journal.source_file = f.source_file
    group by all
),
final as (
    select
        prefill.campaign,
        prefill.prefill_task,
        prefill.journal_file,
        prefill.prefill_s,
        prefill.prefill_tokens,
        prefill.prompt_eval_line,
        -- the prompt's tokens ("new prompt … task.n_tokens") less those evaluated: the rest came
        -- from the slot's cache (0: a fresh prompt; empty when the log has no "new prompt" line)
        prefill.prompt_tokens,
        prefill.prompt_tokens - prefill.prefill_tokens as cached_tokens,
        coalesce(prefill.new_prompt_unix_s,
                 prefill.timing_unix_s - coalesce(prefill.task_eval_s, 0) - prefill.prefill_s)
            as prefill_start_unix_s,
        coalesce(prefill.new_prompt_unix_s,
                 prefill.timing_unix_s - coalesce(prefill.task_eval_s, 0) - prefill.prefill_s)
            + prefill.prefill_s as prefill_end_unix_s,
        case when prefill.new_prompt_unix_s is not null then 'new prompt line'
             when prefill.timing_unix_s is not null then 'timing block' end as prefill_window_basis,
        prefill.prefill_tokens / prefill.prefill_s as prefill_tokens_per_s,
        decode.decode_task,
        decode.decode_journal_file,
        decode.decode_s,
        decode.eval_line_unix_s - decode.decode_s as decode_start_unix_s,
        decode.eval_line_unix_s as decode_end_unix_s,
        decode.decode_tokens,
        decode.decode_tokens / decode.decode_s as decode_tokens_per_s,
        decode.draft_accepted,
        decode.draft_generated,
        decode.draft_mean_len,
        decode.eval_line
    from prefill
    full join decode on decode.campaign = prefill.campaign
)
select * from final
order by campaign
