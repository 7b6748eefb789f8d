-- grain: one row per MTU x link class
-- key: mtu_bytes, link_class
-- why: §5.1: payload share of the wire per frame at each declared MTU (standard and jumbo) and
-- the usable TCP rate each link class would have at that MTU; same formula as dim_link_classes.
-- column payload_fraction: payload bytes over wire bytes of one full-MTU frame
-- column overhead_fraction: 1 - payload_fraction: the share of the wire that is not payload
-- column usable_bits_per_s: what the class would carry as TCP payload at this MTU: line rate x
--    payload fraction
with mtus as (
    select * from ref_mtu_sizes
),

efficiency as (
    select * from int_frame_efficiency
),

links as (
    select * from dim_link_classes
),

final as (
    select
        mtus.mtu_bytes,
        mtus.label as mtu_label,
        mtus.sort_order as mtu_sort_order,
        efficiency.packet_header_bytes,
        efficiency.frame_overhead_bytes,
        efficiency.wire_overhead_bytes,
        efficiency.payload_bytes_per_frame,
        efficiency.wire_bytes_per_frame,
        efficiency.wire_bytes_per_frame - efficiency.payload_bytes_per_frame
            as overhead_bytes_per_frame,
        efficiency.payload_fraction,
        1 - efficiency.payload_fraction as overhead_fraction,
        links.link_class,
        links.label as link_label,
        links.sort_order as link_sort_order,
        links.line_rate_bits_per_s,
        links.line_rate_bits_per_s * efficiency.payload_fraction as usable_bits_per_s
    from mtus
    inner join efficiency on efficiency.mtu_bytes = mtus.mtu_bytes
    cross join links
)

select * from final
order by mtu_sort_order, link_sort_order
