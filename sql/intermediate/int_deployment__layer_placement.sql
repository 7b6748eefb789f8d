-- grain: one row per campaign and model block (layer)
-- llama.cpp's layer-split rule (src/llama-model.cpp, load_tensors): the TENSOR_SPLIT
-- fractions are made cumulative and normalised; with act = min(n_gpu_layers, n_layer + 1)
-- offloaded layers, layer il goes to the first device whose cumulative share exceeds
-- (il - i_gpu_start) / act (std::upper_bound), and layers below i_gpu_start = max(n_layer -
-- n_gpu_layers, 0) stay on the CPU. For the qwen3next/qwen35 hybrid, layer il uses full
-- attention when (il + 1) % full_attention_interval = 0 (the others are recurrent).
with cfg as (
    select * from int_deployment__service_config
),
shape as (
    select * from int_deployment__model_shape
),
devices as (
    select
        campaign,
        generate_subscripts(string_split(tensor_split, ','), 1) as device_index,
        trim(unnest(string_split(tensor_split, ',')))::double as fraction,
        trim(unnest(string_split(split_hosts, ','))) as host
    from cfg
),
cumulative as (
    select
        *,
        sum(fraction) over (partition by campaign order by device_index)
            / sum(fraction) over (partition by campaign) as cumulative_share
    from devices
),
layers as (
    select
        shape.campaign,
        shape.full_attention_interval,
        unnest(generate_series(0, shape.block_count - 1)) as layer,
        greatest(shape.block_count - coalesce(cfg.n_gpu_layers, shape.block_count + 1), 0) as i_gpu_start,
        least(coalesce(cfg.n_gpu_layers, shape.block_count + 1), shape.block_count + 1) as act_gpu_layers
    from shape
    join cfg on cfg.campaign = shape.campaign
),
placed as (
    select
        layers.campaign,
        layers.layer,
        layers.full_attention_interval,
        layers.layer < layers.i_gpu_start as on_cpu,
        min(cumulative.device_index) filter (
            where cumulative.cumulative_share
                  > (layers.layer - layers.i_gpu_start)::double / layers.act_gpu_layers) as device_index
    from layers
    join cumulative on cumulative.campaign = layers.campaign
    group by all
),
final as (
    select
        placed.campaign,
        placed.layer,
        placed.device_index,
        case when placed.on_cpu then null else cumulative.host end as host,
        (placed.layer + 1) % placed.full_attention_interval = 0 as is_full_attention
    from placed
    left join cumulative
        on cumulative.campaign = placed.campaign and cumulative.device_index = placed.device_index
)
select * from final
order by campaign, layer
