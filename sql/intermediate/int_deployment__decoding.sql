-- grain: one row per campaign with a decode anchor task
-- How the deployment decodes, from its data: speculative with MTP (the model's own nextn
-- layers draft), with a separate draft model, with n-grams, or not at all (one position per
-- step). The service's spec type (llama.cpp --spec-type: draft-mtp, draft-simple, draft-eagle3,
-- ngram-*, none) decides when set; else a draft model setting means a draft model; else draft
-- statistics in the log mean MTP when the GGUF has nextn layers. A speculative verify step
-- carries 1 + n_max positions. Builds since 2026 log the mean accepted length per step,
-- mean len = 1 + accepted / steps, which gives the steps directly. Else the server's draft
-- statistics after the task give its drafts, each one verify step (int_deployment__draft_statistics).
-- Else every step is taken to draft n_max tokens (steps = drafted / n_max), unless the
-- statistics show drafts of another mean length: then the steps are not measured. Without
-- speculation each step is one position and one token.
with runs as (
    select * from int_deployment__journal_runs
    where decode_task is not null
),
cfg as (
    select * from int_deployment__service_config
),
shape as (
    select * from int_deployment__model_shape
),
stats as (
    select * from int_deployment__draft_statistics
),
moded as (
    select
        runs.campaign,
        runs.decode_s,
        runs.decode_tokens,
        runs.draft_accepted,
        runs.draft_generated,
        runs.draft_mean_len,
        cfg.spec_draft_n_max,
        cfg.spec_draft_n_max_is_default,
        cfg.spec_type,
        stats.statistics_file,
        stats.statistics_line,
        stats.task_drafts,
        stats.task_drafted_tokens,
        stats.server_tokens_per_draft,
        case
            when cfg.spec_type like '%mtp%' then 'mtp'
            when cfg.spec_type like 'ngram%' then 'ngram'
            when cfg.spec_type = 'none' then 'none'
            when cfg.spec_type is not null then 'draft_model'
            when cfg.draft_model is not null then 'draft_model'
            when runs.draft_generated is not null and coalesce(shape.nextn_layers, 0) > 0 then 'mtp'
            when runs.draft_generated is not null then 'speculative'
            else 'none'
        end as decoding_mode
    from runs
    left join cfg on cfg.campaign = runs.campaign
    left join shape on shape.campaign = runs.campaign
    left join stats on stats.campaign = runs.campaign
),
stepped as (
    select
        *,
        case when decoding_mode = 'none' then decode_tokens
             when draft_mean_len > 1 then round(draft_accepted / (draft_mean_len - 1))
             when task_drafts > 0 and task_drafted_tokens = draft_generated then task_drafts
             when abs(server_tokens_per_draft - spec_draft_n_max) > 0.005 then null
             else draft_generated / spec_draft_n_max end as steps,
        case when decoding_mode = 'none' then 'one position per step'
             when draft_mean_len > 1 then 'mean len in the log'
             when task_drafts > 0 and task_drafted_tokens = draft_generated then 'gen drafts in the log'
             when abs(server_tokens_per_draft - spec_draft_n_max) > 0.005 then 'not measured'
             when spec_draft_n_max_is_default then 'drafted / default n_max'
             else 'drafted / n_max' end as steps_basis
    from moded
),
final as (
    select
        campaign,
        decoding_mode,
        spec_type,
        spec_draft_n_max,
        spec_draft_n_max_is_default,
        statistics_file,
        statistics_line,
        server_tokens_per_draft,
        case decoding_mode when 'none' then 1 else 1 + spec_draft_n_max end as verify_positions,
        steps as verify_steps,
        steps_basis,
        decode_s / steps as verify_step_s,
        decode_tokens / steps as tokens_per_step
    from stepped
)
select * from final
order by campaign
