-- grain: one row per MTU (every MTU declared in ref_mtu_sizes or used by an Ethernet class)
-- why: the usable TCP rate of a link is the payload share of what the wire carries per frame:
-- (mtu - IP/TCP headers) / (mtu + Ethernet header/FCS + preamble/SFD + inter-frame gap).
-- One home for that formula: dim_link_classes and fct_header_overhead both read it.
with overheads as (
    select
        coalesce(sum(bytes) filter (where applies_to = 'packet'), 0) as packet_header_bytes,
        coalesce(sum(bytes) filter (where applies_to = 'frame'), 0) as frame_overhead_bytes,
        coalesce(sum(bytes) filter (where applies_to = 'wire'), 0) as wire_overhead_bytes
    from ref_frame_overheads
),

mtus as (
    select mtu_bytes from ref_mtu_sizes
    union
    select mtu_bytes from ref_ethernet_classes
),

final as (
    select
        mtus.mtu_bytes,
        overheads.packet_header_bytes,
        overheads.frame_overhead_bytes,
        overheads.wire_overhead_bytes,
        mtus.mtu_bytes - overheads.packet_header_bytes as payload_bytes_per_frame,
        mtus.mtu_bytes + overheads.frame_overhead_bytes + overheads.wire_overhead_bytes
            as wire_bytes_per_frame,
        (mtus.mtu_bytes - overheads.packet_header_bytes)::double
            / (mtus.mtu_bytes + overheads.frame_overhead_bytes + overheads.wire_overhead_bytes)
            as payload_fraction
    from mtus
    cross join overheads
)

select * from final
order by mtu_bytes
