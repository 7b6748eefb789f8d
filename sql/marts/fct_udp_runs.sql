-- grain: one row per campaign and iperf3 UDP run (one file)
-- key: campaign, source_file
-- A UDP run measures loss and jitter at the rate iperf3 was told to send (-u -b): it says how
-- a link behaves under that load, never what the link can carry, so no throughput figure reads
-- it. Since iperf3 3.11 the receiver's figures are in end.sum_received; before, only end.sum
-- was written (received_bytes NULL: not measured).
-- column sender: the sending host (the file's context, else iperf3's local host)
-- column receiver: the receiving host (the file's context, else iperf3's remote host)
-- column iperf3_version: the iperf3 version the JSON says wrote it
-- column duration_s: the run's length
-- column sent_bits_per_s: the rate the sender sent at (-b)
-- column received_bits_per_s: the rate the receiver got (end.sum_received; empty before iperf3
--    3.11)
-- column jitter_s: the receiver's jitter
-- column lost_packets: the datagrams lost
-- column packets: the datagrams sent
-- column lost_fraction: lost / sent datagrams
with source as (
    select * from stg_raw__iperf3_runs
    where protocol = 'UDP'
),
files as (
    select * from stg_raw__file_context
),
final as (
    select
        source.campaign,
        source.source_file,
        [source.source_file] as source_files,
        coalesce(files.sender, files.host, source.local_host) as sender,
        coalesce(files.receiver, source.remote_host) as receiver,
        source.version as iperf3_version,
        source.duration_s,
        source.sent_bits_per_s,
        source.received_bits_per_s,
        ms_to_s(source.jitter_ms) as jitter_s,
        source.lost_packets,
        source.packets,
        source.lost_percent / 100 as lost_fraction
    from source
    left join files on files.source_file = source.source_file
)
select * from final
order by campaign, source_file
