-- grain: one row per model x pipeline stages (default dtype, reference batch)
-- key: model, pp_stages
-- scope: comparison
-- why: §3.1 / §6: how many times more a TP token moves than a PP token, like with like: the TP
-- formula over the PP formula on the same shape, (layers x all-reduces per layer) / (stages - 1),
-- independent of batch and hidden size. The PP formula moves the hidden state once per boundary
-- (boundaries x H x batch x bytes per value, which is boundaries x TP's bytes per all-reduce). A
-- measured row also carries its measured PP wire bytes (pp_bytes_per_token, which include
-- llama.cpp's RPC graph) and tp_to_measured_pp_ratio, the TP formula over them; formula rows have
-- none (null).
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
        pp.transfers_per_token * tp.bytes_per_transfer as pp_formula_bytes_per_token,
        tp.transfers_per_token as tp_allreduces_per_token,
        tp.bytes_per_transfer as tp_bytes_per_allreduce,
        tp.bytes_per_token as tp_bytes_per_token,
        tp.bytes_per_token / (pp.transfers_per_token * tp.bytes_per_transfer) as tp_to_pp_ratio,
        case when pp.basis = 'measured' then tp.bytes_per_token / pp.bytes_per_token end
            as tp_to_measured_pp_ratio
    from pp
    inner join tp on tp.model = pp.model
    where pp.transfers_per_token > 0
)

select * from final
order by model_sort_order, pp_stages
