-- grain: one row per lab series campaign
-- key: campaign
-- What a lab series campaign is, for the head of its page: its manifest (title, date,
-- provenance), how it drove llama-server (manifest params.lab_drive, params.lab_pinning), its
-- model as the GGUF header states it, and how many runs, rates and rounds it holds.
-- column series: the lab series (manifest params.lab_series)
-- column title: the manifest's title
-- column campaign_date: the manifest's date
-- column provenance: captured or reconstructed (the manifest)
-- column prompt_tokens: the prefill prompt's tokens (params.lab_drive)
-- column decode_tokens: tokens each decode generated (params.lab_drive)
-- column ubatch_tokens: llama-server's micro-batch (params.lab_drive)
-- column gpu_layers: llama-server -ngl: the last ngl - 1 blocks and the output layer on the worker
-- column pinning: which process ran on which core (params.lab_pinning)
-- column model_name: general.name of the GGUF header
-- column hidden_size: the model's embedding length (GGUF)
-- column block_count: the model's blocks (GGUF)
-- column runs: runs the manifest lists (params.lab_runs)
-- column timed_runs: runs whose prefill, decode and snapshot were all found in the log
-- column rates: links (rates) the runs used, the unshaped one included
-- column rounds: rounds of the series
with campaigns as (
    select * from stg_raw__campaigns where kind = 'lab_series'
),
runs as (
    select
        campaign,
        count(*) as runs,
        count(*) filter (where prefill_s is not null and decode_s is not null
                         and snapshot_s is not null) as timed_runs,
        count(distinct link_id) as rates,
        count(distinct round) as rounds
    from int_lab__series_runs
    group by all
),
gguf as (
    select * from int_deployment__gguf_keys
),
final as (
    select
        c.campaign,
        c.params->>'lab_series' as series,
        c.title,
        c.date as campaign_date,
        c.provenance,
        try_cast(c.params->'lab_drive'->>'prompt_tokens' as bigint) as prompt_tokens,
        try_cast(c.params->'lab_drive'->>'decode_tokens' as bigint) as decode_tokens,
        try_cast(c.params->'lab_drive'->>'ubatch' as bigint) as ubatch_tokens,
        try_cast(c.params->'lab_drive'->>'ngl' as bigint) as gpu_layers,
        c.params->>'lab_pinning' as pinning,
        gguf.model_name,
        gguf.hidden_size,
        gguf.block_count,
        coalesce(runs.runs, 0) as runs,
        coalesce(runs.timed_runs, 0) as timed_runs,
        coalesce(runs.rates, 0) as rates,
        coalesce(runs.rounds, 0) as rounds
    from campaigns as c
    left join runs using (campaign)
    left join gguf using (campaign)
)
select * from final
order by campaign
