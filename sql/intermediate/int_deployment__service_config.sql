-- grain: one row per campaign (the head host's service env file)
-- llama-server's launch settings that shape the traffic: ubatch (positions per RPC round),
-- the layer split, the KV cache types, speculative decoding. An env key names a setting through
-- ref_llama_server_settings (the service's own names or llama.cpp's LLAMA_ARG_*); a setting the
-- file does not give takes llama.cpp's default from the same table, marked as such.
with env as (
    select * from stg_deployment__service_env
),
head as (
    select campaign, host from int_deployment__host_roles where role = 'head'
),
settings as (
    select * from ref_llama_server_settings
),
head_env as (
    select env.*
    from env
    join head on head.campaign = env.campaign and head.host = env.host
),
files as (
    select campaign, max(source_file) as env_file, list(distinct source_file) as source_files,
           max(host) as host, max(split_hosts) as split_hosts
    from head_env
    group by campaign
),
given as (
    select head_env.campaign, settings.setting, max(head_env.value) as value,
           max(head_env.source_line) as source_line, max(head_env.key) as env_key
    from head_env
    join settings on settings.env_key = head_env.key
    group by all
),
defaults as (
    select setting, max(default_value) as default_value from settings group by setting
),
wide as (
    select
        files.campaign,
        files.env_file,
        files.source_files,
        files.host,
        files.split_hosts,
        defaults.setting,
        coalesce(given.value, defaults.default_value::varchar) as value,
        given.value is null as is_default,
        given.source_line,
        given.env_key
    from files
    cross join defaults
    left join given on given.campaign = files.campaign and given.setting = defaults.setting
),
final as (
    select
        campaign,
        max(env_file) as env_file,
        max(source_files) as source_files,
        max(host) as host,
        max(split_hosts) as split_hosts,
        max(try_cast(value as bigint)) filter (where setting = 'ubatch_tokens') as ubatch_tokens,
        bool_or(is_default) filter (where setting = 'ubatch_tokens') as ubatch_is_default,
        max(env_key) filter (where setting = 'ubatch_tokens') as ubatch_env_key,
        max(try_cast(value as bigint)) filter (where setting = 'batch_tokens') as batch_tokens,
        max(try_cast(value as bigint)) filter (where setting = 'parallel_slots') as parallel_slots,
        max(try_cast(value as bigint)) filter (where setting = 'spec_draft_n_max') as spec_draft_n_max,
        bool_or(is_default) filter (where setting = 'spec_draft_n_max') as spec_draft_n_max_is_default,
        max(env_key) filter (where setting = 'spec_draft_n_max') as spec_draft_n_max_env_key,
        max(try_cast(value as bigint)) filter (where setting = 'n_gpu_layers') as n_gpu_layers,
        max(value) filter (where setting = 'tensor_split') as tensor_split,
        max(env_key) filter (where setting = 'tensor_split') as tensor_split_env_key,
        max(lower(value)) filter (where setting = 'cache_type_k') as cache_type_k,
        max(lower(value)) filter (where setting = 'cache_type_v') as cache_type_v,
        max(lower(value)) filter (where setting = 'spec_type') as spec_type,
        max(value) filter (where setting = 'draft_model') as draft_model,
        max(source_line) filter (where setting = 'ubatch_tokens') as ubatch_line
    from wide
    group by campaign
)
select * from final
order by campaign
