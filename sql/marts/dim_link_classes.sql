-- grain: one row per Ethernet link class
-- key: link_class
-- why: the usable TCP rate is derived from the line rate and the frame overheads at the class's
-- MTU (int_frame_efficiency), never typed; §0 and the feasibility tables divide by it.
-- column label: the class as the pages print it
-- column usable_fraction: the payload share of a full-MTU frame's wire bytes (payload / wire bytes
--    per frame)
-- column sort_order: the order the pages list link classes in (slowest first)
with classes as (
    select * from ref_ethernet_classes
),

efficiency as (
    select * from int_frame_efficiency
),

final as (
    select
        classes.link_class,
        classes.label,
        classes.line_rate_bits_per_s::double as line_rate_bits_per_s,
        classes.mtu_bytes,
        efficiency.packet_header_bytes,
        efficiency.frame_overhead_bytes,
        efficiency.wire_overhead_bytes,
        efficiency.payload_bytes_per_frame,
        efficiency.wire_bytes_per_frame,
        efficiency.payload_fraction as usable_fraction,
        classes.line_rate_bits_per_s * efficiency.payload_fraction as usable_bits_per_s,
        bits_to_bytes(classes.line_rate_bits_per_s * efficiency.payload_fraction) as usable_bytes_per_s,
        classes.sort_order
    from classes
    inner join efficiency on efficiency.mtu_bytes = classes.mtu_bytes
)

select * from final
order by sort_order
