-- grain: one row per model x scheme (pp, tp) x activation dtype x batch size x pipeline stages
-- scope: comparison
-- why: the one home of the bytes-per-token formulas (§1, appendix). During decode each of the
-- batch's sequences advances one position per step, so a step moves batch x hidden x bytes/value
-- per transfer. PP makes (stages - 1) boundary transfers per token, TP one all-reduce of the
-- hidden state per layer (x tp_allreduces_per_layer). The measured model's PP transfer is its
-- measured wire bytes per position (busier direction) x batch, at its own 2 stages and fp16 only;
-- its TP rows are the formula on the deployed shape (there is no TP measurement).
with shapes as (
    select * from dim_model_shapes
),

dtypes as (
    select * from dim_activation_dtypes
),

batches as (
    select batch_size from ref_workload_batch_sizes
),

params as (
    select * from dim_parallelism_params
),

stages as (
    select value::integer as pp_stages from ref_pipeline_grid where dimension = 'pp_stages'
    union
    select pp_stages from params
),

pp_formula as (
    select
        shapes.model,
        'pp' as scheme,
        dtypes.dtype,
        batches.batch_size,
        stages.pp_stages,
        stages.pp_stages - 1 as transfers_per_token,
        (shapes.hidden_size * batches.batch_size * dtypes.bytes_per_value)::double
            as bytes_per_transfer,
        'formula' as basis
    from shapes
    cross join dtypes
    cross join batches
    cross join stages
    where shapes.basis = 'formula'
),

pp_measured as (
    select
        shapes.model,
        'pp' as scheme,
        dtypes.dtype,
        batches.batch_size,
        params.pp_stages,
        params.pp_stages - 1 as transfers_per_token,
        shapes.wire_bytes_per_position * batches.batch_size as bytes_per_transfer,
        'measured' as basis
    from shapes
    cross join dtypes
    cross join batches
    cross join params
    where shapes.basis = 'measured' and dtypes.is_default
),

tp_formula as (
    select
        shapes.model,
        'tp' as scheme,
        dtypes.dtype,
        batches.batch_size,
        null::integer as pp_stages,
        shapes.num_layers * params.tp_allreduces_per_layer as transfers_per_token,
        (shapes.hidden_size * batches.batch_size * dtypes.bytes_per_value)::double
            as bytes_per_transfer,
        'formula' as basis
    from shapes
    cross join dtypes
    cross join batches
    cross join params
),

unioned as (
    select * from pp_formula
    union all
    select * from pp_measured
    union all
    select * from tp_formula
),

final as (
    select
        unioned.model,
        shapes.label as model_label,
        shapes.sort_order as model_sort_order,
        shapes.hidden_size,
        shapes.num_layers,
        unioned.scheme,
        upper(unioned.scheme) as scheme_label,
        unioned.dtype,
        dtypes.is_default as is_default_dtype,
        unioned.batch_size,
        unioned.batch_size = (select min(batch_size) from batches) as is_reference_batch,
        unioned.pp_stages,
        unioned.scheme = 'tp' or unioned.pp_stages = params.pp_stages as is_default_stages,
        unioned.transfers_per_token,
        unioned.bytes_per_transfer,
        unioned.transfers_per_token * unioned.bytes_per_transfer as bytes_per_token,
        unioned.basis,
        shapes.campaign,
        -- a measured row rests on the deployment's captures; a formula row on a measured
        -- model's shape rests on its GGUF header only
        case when unioned.basis = 'measured' then shapes.source_files
             else shapes.shape_source_files end as source_files
    from unioned
    inner join shapes on shapes.model = unioned.model
    inner join dtypes on dtypes.dtype = unioned.dtype
    cross join params
)

select * from final
order by model_sort_order, scheme, dtype, batch_size, pp_stages
