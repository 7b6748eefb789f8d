-- grain: one row per campaign
-- The anchor task (manifest params.prefill_task / decode_task) as llama-server logged it.
-- Prefill window: from the task's "new prompt" line for the prompt eval time it reports
-- (t_prompt_processing starts when the slot starts on the prompt). Decode: the verify steps
-- of speculative decoding are generated drafts / SPEC_DRAFT_N_MAX (each MTP step drafts
-- n_max tokens and verifies them with one extra position).
with anchors as (
    select
        campaign,
        try_cast(params->>'prefill_task' as bigint) as prefill_task,
        try_cast(params->>'decode_task' as bigint) as decode_task
    from raw_campaigns
    where kind = 'deployment'
),
journal as (
    select * from stg_deployment__journal
),
prefill as (
    select
        anchors.campaign,
        anchors.prefill_task,
        max(journal.source_file) as journal_file,
        min(journal.unix_s) filter (where journal.event = 'new_prompt') as prefill_start_unix_s,
        max(journal.duration_s) filter (where journal.event = 'prompt_eval') as prefill_s,
        max(journal.tokens) filter (where journal.event = 'prompt_eval') as prefill_tokens,
        max(journal.source_line) filter (where journal.event = 'prompt_eval') as prompt_eval_line
    from anchors
    join journal on journal.campaign = anchors.campaign and journal.task_id = anchors.prefill_task
    group by all
),
decode as (
    select
        anchors.campaign,
        anchors.decode_task,
        max(journal.duration_s) filter (where journal.event = 'eval') as decode_s,
        max(journal.tokens) filter (where journal.event = 'eval') as decode_tokens,
        max(journal.accepted) filter (where journal.event = 'draft_acceptance') as draft_accepted,
        max(journal.generated) filter (where journal.event = 'draft_acceptance') as draft_generated,
        max(journal.source_line) filter (where journal.event = 'eval') as eval_line
    from anchors
    join journal on journal.campaign = anchors.campaign and journal.task_id = anchors.decode_task
    group by all
),
final as (
    select
        prefill.*,
        prefill.prefill_start_unix_s + prefill.prefill_s as prefill_end_unix_s,
        prefill.prefill_tokens / prefill.prefill_s as prefill_tokens_per_s,
        decode.decode_task,
        decode.decode_s,
        decode.decode_tokens,
        decode.decode_tokens / decode.decode_s as decode_tokens_per_s,
        decode.draft_accepted,
        decode.draft_generated,
        decode.eval_line,
        cfg.spec_draft_n_max,
        decode.draft_generated / cfg.spec_draft_n_max as verify_steps,
        decode.decode_s / (decode.draft_generated / cfg.spec_draft_n_max) as verify_step_s,
        decode.decode_tokens / (decode.draft_generated / cfg.spec_draft_n_max) as tokens_per_step
    from prefill
    left join decode on decode.campaign = prefill.campaign
    left join int_deployment__service_config as cfg on cfg.campaign = prefill.campaign
)
select * from final
order by campaign
