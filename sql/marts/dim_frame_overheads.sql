-- grain: one row per per-frame overhead component (header, trailer, preamble, gap)
-- key: component
-- why: §5.1 lists what each Ethernet frame carries besides payload, with its layer.
-- column component: the overhead's key in frame_overheads.csv
-- column label: the component as the pages print it
-- column bytes: the bytes the component adds to each frame
-- column applies_to: where it sits: packet (inside the MTU), frame (Ethernet header and trailer) or
--    wire (preamble and gap)
-- column layer_order: packet, frame, wire as 1, 2, 3 (the order of §5.1)
-- column source: the standard or note the size is taken from
with source as (
    select * from ref_frame_overheads
),

final as (
    select
        component,
        label,
        bytes,
        applies_to,
        case applies_to
            when 'packet' then 1
            when 'frame' then 2
            else 3
        end as layer_order,
        source
    from source
)

select * from final
order by layer_order, bytes desc, component
