-- grain: one row per campaign (the head host's service env file)
-- llama-server's launch settings that shape the traffic: ubatch (positions per RPC round),
-- the layer split, the KV cache types and the speculative draft length.
with env as (
    select * from stg_deployment__service_env
),
head as (
    select campaign, host from int_deployment__host_roles where role = 'head'
),
final as (
    select
        env.campaign,
        max(env.source_file) as env_file,
        max(env.host) as host,
        max(env.split_hosts) as split_hosts,
        max(try_cast(env.value as bigint)) filter (where env.key = 'UBATCH_SIZE') as ubatch_tokens,
        max(try_cast(env.value as bigint)) filter (where env.key = 'BATCH_SIZE') as batch_tokens,
        max(try_cast(env.value as bigint)) filter (where env.key = 'PARALLEL') as parallel_slots,
        max(try_cast(env.value as bigint)) filter (where env.key = 'SPEC_DRAFT_N_MAX') as spec_draft_n_max,
        max(try_cast(env.value as bigint)) filter (where env.key = 'N_GPU_LAYERS') as n_gpu_layers,
        max(env.value) filter (where env.key = 'TENSOR_SPLIT') as tensor_split,
        max(lower(env.value)) filter (where env.key = 'CACHE_TYPE_K') as cache_type_k,
        max(lower(env.value)) filter (where env.key = 'CACHE_TYPE_V') as cache_type_v,
        max(env.source_line) filter (where env.key = 'UBATCH_SIZE') as ubatch_line
    from env
    join head on head.campaign = env.campaign and head.host = env.host
    group by env.campaign
)
select * from final
order by campaign
