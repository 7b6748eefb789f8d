-- grain: one row per model x scheme x batch size x token rate (default dtype and pipeline stages)
-- key: model, scheme, batch_size, tokens_per_s
-- scope: comparison
-- why: §2.2: required rate = bytes per token x tokens per second x 8 bits per byte, in bit/s
-- (rendered as Mbit/s = / 10^6). The token rate is per sequence: a decode step of the whole batch
-- happens tokens_per_s times a second.
-- column tokens_per_s: the token rate per sequence of the workload (workload_token_rates.csv)
-- column required_bits_per_s: the rate the link must carry: bytes per token x tokens per second x 8
with bytes as (
    select * from fct_bytes_per_token
    where is_default_dtype and is_default_stages
),

rates as (
    select tokens_per_s from ref_workload_token_rates
),

final as (
    select
        bytes.model,
        bytes.model_label,
        bytes.model_sort_order,
        bytes.hidden_size,
        bytes.num_layers,
        bytes.scheme,
        bytes.scheme_label,
        bytes.basis,
        bytes.campaign,
        bytes.source_files,
        bytes.pp_stages,
        bytes.transfers_per_token,
        bytes.batch_size,
        rates.tokens_per_s,
        bytes.bytes_per_token,
        bytes_to_bits(bytes.bytes_per_token * rates.tokens_per_s) as required_bits_per_s
    from bytes
    cross join rates
)

select * from final
order by model_sort_order, scheme, batch_size, tokens_per_s
