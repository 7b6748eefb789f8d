-- grain: one row per model x pipeline stages (default dtype, reference batch)
-- key: model, pp_stages
-- scope: comparison
-- why: §3.1 / §6: how many times more a TP token moves than a PP token. For formula rows this is
-- (layers x all-reduces per layer) / (stages - 1), independent of batch and hidden size; the
-- measured row divides the TP formula on the deployed shape by its measured PP wire bytes.
with bytes as (
    select * from fct_bytes_per_token
    where is_default_dtype and is_reference_batch
),

pp as (
    select * from bytes where scheme = 'pp'
),

tp as (
    select * from bytes where scheme = 'tp'
),

final as (
    select
        pp.model,
        pp.model_label,
        pp.model_sort_order,
        pp.hidden_size,
        pp.num_layers,
        pp.basis as pp_basis,
        pp.campaign,
        pp.source_files,
        pp.pp_stages,
        pp.is_default_stages,
        pp.transfers_per_token as pp_boundaries,
        pp.bytes_per_transfer as pp_bytes_per_boundary,
        pp.bytes_per_token as pp_bytes_per_token,
        tp.transfers_per_token as tp_allreduces_per_token,
        tp.bytes_per_transfer as tp_bytes_per_allreduce,
        tp.bytes_per_token as tp_bytes_per_token,
        tp.bytes_per_token / pp.bytes_per_token as tp_to_pp_ratio
    from pp
    inner join tp on tp.model = pp.model
    where pp.transfers_per_token > 0
)

select * from final
order by model_sort_order, pp_stages
