-- grain: one row per model x batch size (default activation dtype, default pipeline stages)
-- key: model, batch_size
-- scope: comparison
-- why: the §1.3 scaling table puts PP and TP bytes per token side by side. For the measured row
-- the PP figure is the measured wire bytes; pp_formula_bytes_per_token keeps the raw-hidden formula
-- on the same shape so theory and reality can be compared. tp_to_pp_ratio compares like with
-- like (the TP formula over the PP formula); tp_to_measured_pp_ratio, on measured rows only, the
-- TP formula over the measured PP wire bytes.
-- column model_basis: formula for a reference shape, measured for a deployed model
-- column tp_basis: where the TP bytes come from (formula: no TP run is measured)
with bytes as (
    select * from fct_bytes_per_token
    where is_default_dtype and is_default_stages
),

shapes as (
    select * from dim_model_shapes
),

pp as (
    select * from bytes where scheme = 'pp'
),

tp as (
    select * from bytes where scheme = 'tp'
),

final as (
    select
        tp.model,
        tp.model_label,
        tp.model_sort_order,
        shapes.basis as model_basis,
        shapes.campaign,
        shapes.source_files,
        tp.hidden_size,
        tp.num_layers,
        tp.batch_size,
        tp.is_reference_batch,
        pp.pp_stages,
        pp.transfers_per_token as pp_boundaries,
        pp.bytes_per_transfer as pp_bytes_per_boundary,
        pp.bytes_per_token as pp_bytes_per_token,
        pp.basis as pp_basis,
        pp.transfers_per_token * tp.bytes_per_transfer as pp_formula_bytes_per_token,
        tp.transfers_per_token as tp_allreduces_per_token,
        tp.bytes_per_transfer as tp_bytes_per_allreduce,
        tp.bytes_per_token as tp_bytes_per_token,
        tp.basis as tp_basis,
        tp.bytes_per_token / (pp.transfers_per_token * tp.bytes_per_transfer) as tp_to_pp_ratio,
        case when pp.basis = 'measured' then tp.bytes_per_token / pp.bytes_per_token end
            as tp_to_measured_pp_ratio
    from tp
    inner join pp on pp.model = tp.model and pp.batch_size = tp.batch_size
    inner join shapes on shapes.model = tp.model
)

select * from final
order by model_sort_order, batch_size
