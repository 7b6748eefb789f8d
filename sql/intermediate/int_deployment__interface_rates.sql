-- grain: one row per campaign, host and interface that ethtool reported
-- What "line rate" is on each interface of a deployment: the rate a tc qdisc shaped its link
-- to (manifest shaped_rate_bits_per_s), else its negotiated speed, unless the manifest marks
-- that speed nominal (a veth pair prints a fixed 10 Gbit/s): then it has none. Busy intervals
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
        coalesce(ends.shaped_rate_bits_per_s,
                 case when not coalesce(ends.nominal_speed, false) then ethtool.negotiated_bits_per_s end)
            as line_rate_bits_per_s,
        case when ends.shaped_rate_bits_per_s is not null then 'shaped rate'
             when coalesce(ends.nominal_speed, false) then 'no line rate (nominal speed)'
             when ethtool.negotiated_bits_per_s is not null then 'negotiated speed'
        end as line_rate_basis
    from ethtool
    left join ends
        on ends.campaign = ethtool.campaign and ends.host = ethtool.host
        and ends.interface = ethtool.interface
)
select * from final
