-- grain: one row per netdev capture file, interface and sampling interval
-- Byte counters become per-interval deltas here, once, so that every later model sums
-- intervals instead of subtracting counters. Samples are put back in time order and a
-- repeated instant counts once. A counter that goes down is either a 32-bit wrap (it was in
-- the top half of 2^32 and the implied delta is small) or a reset (interface bounced: the
-- counter restarted from zero, so the bytes since the reset are its new value).
with samples as (
    select
        n.campaign,
        n.source_file,
        n.source_line,
        f.host,
        f.link_id,
        n.interface,
        n.sample_unix_s,
        n.rx_bytes::hugeint as rx_bytes,
        n.tx_bytes::hugeint as tx_bytes
    from raw_netdev as n
    join stg_raw__file_context as f on f.source_file = n.source_file
),
deduped as (
    select *
    from samples
    qualify row_number() over (
        partition by source_file, interface, sample_unix_s order by source_line) = 1
),
paired as (
    select
        *,
        lag(sample_unix_s) over w as prev_unix_s,
        lag(rx_bytes) over w as prev_rx_bytes,
        lag(tx_bytes) over w as prev_tx_bytes
    from deduped
    window w as (partition by source_file, interface order by sample_unix_s)
),
classified as (
    select
        *,
        case when rx_bytes >= prev_rx_bytes then 'ok'
             when prev_rx_bytes >= 2147483648 and prev_rx_bytes < 4294967296
                  and rx_bytes + 4294967296 - prev_rx_bytes < 1073741824 then 'wrap'
             else 'reset' end as rx_status,
        case when tx_bytes >= prev_tx_bytes then 'ok'
             when prev_tx_bytes >= 2147483648 and prev_tx_bytes < 4294967296
                  and tx_bytes + 4294967296 - prev_tx_bytes < 1073741824 then 'wrap'
             else 'reset' end as tx_status
    from paired
    where prev_unix_s is not null
),
final as (
    select
        campaign,
        source_file,
        source_line,
        host,
        link_id,
        interface,
        prev_unix_s as start_unix_s,
        sample_unix_s as end_unix_s,
        sample_unix_s - prev_unix_s as interval_s,
        case rx_status when 'ok' then rx_bytes - prev_rx_bytes
                       when 'wrap' then rx_bytes + 4294967296 - prev_rx_bytes
                       else rx_bytes end::bigint as rx_bytes,
        case tx_status when 'ok' then tx_bytes - prev_tx_bytes
                       when 'wrap' then tx_bytes + 4294967296 - prev_tx_bytes
                       else tx_bytes end::bigint as tx_bytes,
        rx_status,
        tx_status
    from classified
)
select * from final
order by source_file, interface, start_unix_s
