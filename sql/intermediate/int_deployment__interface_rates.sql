-- grain: one row per campaign, host and interface that ethtool reported
-- What "line rate" is on each interface of a deployment (the macros line_rate and
-- line_rate_basis of sql/macros.sql, on the manifest's shaping of its link). Busy intervals
-- (a KV copy's link time) are found against the shaped rate, else the negotiated speed even
-- when nominal: a threshold, not a share anyone reads.
with ethtool as (
    select campaign, host, interface, negotiated_bits_per_s
    from stg_deployment__ethtool
),
ends as (
    -- an interface two links of the manifest name (a retired link and its successor) is one
    -- interface: shaped at the highest rate any of them declares, nominal if any says so
    select campaign, host, interface, max(shaped_rate_bits_per_s) as shaped_rate_bits_per_s,
           bool_or(nominal_speed) as nominal_speed
    from int_deployment__link_interfaces
    where host is not null
    group by all
),
final as (
    select
        ethtool.campaign,
        ethtool.host,
        ethtool.interface,
        ethtool.negotiated_bits_per_s,
        ends.shaped_rate_bits_per_s,
        coalesce(ends.shaped_rate_bits_per_s, ethtool.negotiated_bits_per_s) as busy_rate_bits_per_s,
        line_rate(ends.shaped_rate_bits_per_s, ends.nominal_speed, ethtool.negotiated_bits_per_s)
            as line_rate_bits_per_s,
        line_rate_basis(ends.shaped_rate_bits_per_s, ends.nominal_speed, ethtool.negotiated_bits_per_s)
            as line_rate_basis
    from ethtool
    left join ends
        on ends.campaign = ethtool.campaign and ends.host = ethtool.host
        and ends.interface = ethtool.interface
)
select * from final
