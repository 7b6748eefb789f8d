-- grain: one row per deployment campaign and Ethernet link class
-- key: campaign, link_class
-- Snapshot duration (the slot is blocked) per link class, assuming the copy reaches the same
-- share of the usable TCP rate as it did on the measured link:
-- duration = copied bytes / (efficiency x usable rate). On the measured class this is the
-- measured link time by construction.
with s as (
    select * from fct_kv_snapshot
),
final as (
    select
        s.campaign,
        c.link_class,
        c.label as link_label,
        c.sort_order,
        c.link_class = s.measured_link_class as is_measured,
        s.copied_bytes,
        s.efficiency_vs_usable_fraction,
        c.usable_bytes_per_s,
        s.copied_bytes / (s.efficiency_vs_usable_fraction * c.usable_bytes_per_s) as duration_s,
        s.journal_s
    from s
    cross join dim_link_classes as c
)
select * from final
order by campaign, sort_order
