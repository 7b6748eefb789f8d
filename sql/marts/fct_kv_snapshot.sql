-- grain: one row per deployment campaign
-- key: campaign
-- The KV snapshot as measured (netdev) against the model (tokens x worker FA layers x KV bytes)
-- and against the journal's own duration.
with t as (
    select * from int_deployment__kv_snapshot_transfer
),
measured_class as (
    select k.campaign, l.link_class
    from fct_deployment_constants as k
    join fct_deployment_links as l on l.campaign = k.campaign and l.link_id = k.prefill_link_id
),
final as (
    select
        t.*,
        measured_class.link_class as measured_link_class,
        c.label as measured_link_label,
        c.line_rate_bits_per_s / 8 as measured_line_rate_bytes_per_s,
        t.avg_bytes_per_s / c.usable_bytes_per_s as efficiency_vs_usable_fraction,
        t.avg_bytes_per_s * 8 / c.line_rate_bits_per_s as avg_line_rate_fraction,
        t.link_s - t.journal_s as link_minus_journal_s
    from t
    left join measured_class on measured_class.campaign = t.campaign
    left join dim_link_classes as c on c.link_class = measured_class.link_class
)
select * from final
order by campaign
