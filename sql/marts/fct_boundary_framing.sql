-- grain: one row per model x MTU (PP boundary transfer, default dtype/stages, reference batch)
-- key: model, batch_size, mtu_bytes
-- scope: comparison
-- why: §5.1 practical impact: a boundary transfer larger than one segment's payload is split
-- into ceil(bytes / payload per frame) TCP segments, each paying the full per-frame overhead.
-- column bytes_per_transfer: the payload bytes of one PP boundary transfer at the reference batch
-- column segments_per_transfer: the TCP segments the transfer is split into: ceil(bytes / payload
--    per frame)
-- column overhead_bytes_per_transfer: the overhead bytes all its segments add: segments x overhead
--    per frame
-- column wire_bytes_per_transfer: the transfer's bytes on the wire: payload + overhead
-- column overhead_fraction: the share of the wire bytes that is overhead
with transfers as (
    select * from fct_bytes_per_token
    where scheme = 'pp' and is_default_dtype and is_default_stages and is_reference_batch
),

mtus as (
    select * from ref_mtu_sizes
),

efficiency as (
    select * from int_frame_efficiency
),

framed as (
    select
        transfers.model,
        transfers.model_label,
        transfers.model_sort_order,
        transfers.basis,
        transfers.campaign,
        transfers.source_files,
        transfers.batch_size,
        transfers.bytes_per_transfer,
        mtus.mtu_bytes,
        mtus.label as mtu_label,
        mtus.sort_order as mtu_sort_order,
        efficiency.payload_bytes_per_frame,
        ceil(transfers.bytes_per_transfer / efficiency.payload_bytes_per_frame)::bigint
            as segments_per_transfer,
        efficiency.wire_bytes_per_frame - efficiency.payload_bytes_per_frame
            as overhead_bytes_per_frame
    from transfers
    cross join mtus
    inner join efficiency on efficiency.mtu_bytes = mtus.mtu_bytes
),

final as (
    select
        *,
        (segments_per_transfer * overhead_bytes_per_frame)::bigint as overhead_bytes_per_transfer,
        bytes_per_transfer + segments_per_transfer * overhead_bytes_per_frame
            as wire_bytes_per_transfer,
        segments_per_transfer * overhead_bytes_per_frame
            / (bytes_per_transfer + segments_per_transfer * overhead_bytes_per_frame)
            as overhead_fraction
    from framed
)

select * from final
order by model_sort_order, mtu_sort_order
