-- grain: one row per deployment campaign
-- key: campaign
-- The KV snapshot as measured (netdev) against the model (tokens x worker FA layers x KV bytes)
-- and against the journal's own duration.
-- column netdev_file: the worker's /proc/net/dev capture read
-- column journal_file: the llama-server log the snapshot was read from
-- column journal_line: the log line of the snapshot
-- column saved_tokens: the tokens the snapshot saved (from the log)
-- column worker_fa_layers: the full-attention layers the worker holds
-- column model_bytes: the bytes the KV model expects: per worker attention layer, KV bytes per
--    token x tokens (a sliding-window layer at most its window)
-- column measured_vs_model_fraction: copied bytes over the model's bytes, minus 1
-- column link_s: the link's busy time: the sampling intervals in the window above
--    busy_fraction_of_line_rate of the link's rate (its shaped rate, else its negotiated speed)
-- column busy_intervals: how many intervals ran busy
-- column avg_bytes_per_s: copied bytes / link busy time
-- column peak_bytes_per_s: the busiest interval's transmit rate
-- column measured_link_class: the class of the link the deployment ran on
-- column measured_link_label: that class as the pages print it
-- column measured_line_rate_bytes_per_s: that class's line rate in bytes per second
-- column efficiency_vs_usable_fraction: the average rate over that class's usable rate
-- column avg_line_rate_fraction: the average rate over the link's line rate: the rate a tc qdisc
--    shaped it to, else its negotiated speed (ethtool), else its class's line rate; empty on a
--    link whose speed is nominal (a veth pair)
-- column line_rate_bits_per_s: the link's own line rate as above (empty: none known)
-- column line_rate_basis: what that line rate is: shaped rate, negotiated speed, or no line
--    rate (nominal speed)
-- column link_minus_journal_s: the link's busy time minus the snapshot's logged duration
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
        bits_to_bytes(c.line_rate_bits_per_s) as measured_line_rate_bytes_per_s,
        t.avg_bytes_per_s / c.usable_bytes_per_s as efficiency_vs_usable_fraction,
        -- of the link's own line rate (the shaped rate of a tc-shaped link; none for a veth's
        -- nominal speed), else of its class's
        bytes_to_bits(t.avg_bytes_per_s)
            / case when t.line_rate_basis is not null then t.line_rate_bits_per_s
                   else c.line_rate_bits_per_s end as avg_line_rate_fraction,
        t.link_s - t.journal_s as link_minus_journal_s
    from t
    left join measured_class on measured_class.campaign = t.campaign
    left join dim_link_classes as c on c.link_class = measured_class.link_class
)
select * from final
order by campaign
