-- grain: one row per campaign and model block (layer)
-- llama.cpp's layer-split rule (b11434, src/llama-model.cpp load_tensors): the TENSOR_SPLIT
-- fractions are made cumulative and normalised; with n = block_count (every block, MTP layers
-- included: n_layer_all), ngl = n_gpu_layers (unset or negative: all), the offloaded layers
-- are act = min(ngl, n + 1) starting at i_gpu_start = max(n + 1 - ngl, 0); layer il goes to
-- the first device whose cumulative share exceeds (il - i_gpu_start) / act (std::upper_bound),
-- and a layer outside [i_gpu_start, i_gpu_start + act) stays on the CPU of the host running
-- llama-server, the head. (Builds before the nextn split used max(n - ngl, 0).)
with cfg as (
    select * from int_deployment__service_config
),
layers as (
    select * from int_deployment__layers
),
head as (
    select campaign, host from int_deployment__host_roles where role = 'head'
),
devices as (
    select
        campaign,
        generate_subscripts(string_split(tensor_split, ','), 1) as device_index,
        trim(unnest(string_split(tensor_split, ',')))::double as fraction,
        trim(unnest(string_split(split_hosts, ','))) as host
    from cfg
    where tensor_split is not null
),
cumulative as (
    select
        *,
        sum(fraction) over (partition by campaign order by device_index)
            / sum(fraction) over (partition by campaign) as cumulative_share
    from devices
),
bounds as (
    select
        cfg.campaign,
        n.block_count,
        case when cfg.n_gpu_layers is null or cfg.n_gpu_layers < 0 then n.block_count + 1
             else cfg.n_gpu_layers end as ngl
    from cfg
    join (select campaign, count(*) as block_count from layers group by campaign) as n
        on n.campaign = cfg.campaign
),
offload as (
    select campaign, greatest(block_count + 1 - ngl, 0) as i_gpu_start,
           least(ngl, block_count + 1) as act_gpu_layers
    from bounds
),
placed as (
    select
        layers.campaign,
        layers.layer,
        layers.is_full_attention,
        layers.is_nextn,
        layers.attention_kind,
        layers.layer < offload.i_gpu_start
            or layers.layer - offload.i_gpu_start >= offload.act_gpu_layers as on_cpu,
        min(cumulative.device_index) filter (
            where cumulative.cumulative_share
                  > (layers.layer - offload.i_gpu_start)::double / offload.act_gpu_layers) as device_index
    from layers
    join offload on offload.campaign = layers.campaign
    left join cumulative on cumulative.campaign = layers.campaign
    group by all
),
final as (
    select
        placed.campaign,
        placed.layer,
        case when placed.on_cpu then null else placed.device_index end as device_index,
        case when placed.on_cpu then head.host else cumulative.host end as host,
        placed.on_cpu,
        placed.is_full_attention,
        placed.is_nextn,
        placed.attention_kind
    from placed
    left join head on head.campaign = placed.campaign
    left join cumulative
        on cumulative.campaign = placed.campaign and cumulative.device_index = placed.device_index
)
select * from final
order by campaign, layer
