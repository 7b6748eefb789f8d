-- grain: one row per per-frame overhead component (header, trailer, preamble, gap)
-- key: component
-- why: §5.1 lists what each Ethernet frame carries besides payload, with its layer.
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
