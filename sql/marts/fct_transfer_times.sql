-- grain: one row per model x scheme x batch size x link class (default dtype and stages)
-- key: model, scheme, batch_size, link_class
-- scope: comparison
-- why: §3.3: serialization time of one transfer (a PP boundary crossing or one TP all-reduce)
-- and of all of a token's transfers at the link's usable TCP rate: bytes x 8 / usable bit/s.
-- Latency (RTT) is not included here; §5.4 handles it.
-- column transfer_s: one transfer's serialization time at the usable rate: bytes x 8 / usable bit/s
--    (no RTT)
-- column token_transfer_s: all of a token step's transfers at the usable rate (no RTT)
with bytes as (
    select * from fct_bytes_per_token
    where is_default_dtype and is_default_stages
),

links as (
    select * from dim_link_classes
),

final as (
    select
        bytes.model,
        bytes.model_label,
        bytes.model_sort_order,
        bytes.scheme,
        bytes.scheme_label,
        bytes.basis,
        bytes.campaign,
        bytes.source_files,
        bytes.batch_size,
        bytes.is_reference_batch,
        bytes.transfers_per_token,
        bytes.bytes_per_transfer,
        bytes.bytes_per_token,
        links.link_class,
        links.label as link_label,
        links.sort_order as link_sort_order,
        links.usable_bits_per_s,
        bytes_to_bits(bytes.bytes_per_transfer) / links.usable_bits_per_s as transfer_s,
        bytes_to_bits(bytes.bytes_per_token) / links.usable_bits_per_s as token_transfer_s
    from bytes
    cross join links
)

select * from final
order by model_sort_order, scheme, batch_size, link_sort_order
