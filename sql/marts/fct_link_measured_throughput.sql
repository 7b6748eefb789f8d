-- grain: one row per deployment campaign x link that has an iperf3 measurement
-- key: campaign, link_id
-- why: §2.1 sets the derived usable TCP rate of each Ethernet class beside what iperf3 measured
-- on the §0 deployment's links of that class (fct_deployment_links), as a share of the derived rate.
-- column link_label: the link's label from its campaign's manifest
-- column link_class_label: the link's Ethernet class as the pages print it
-- column usable_bits_per_s: the class's derived usable TCP rate (the denominator of both shares)
-- column iperf3_head_to_worker_bits_per_s: the mean received TCP rate of the head -> worker iperf3
--    runs
-- column iperf3_worker_to_head_bits_per_s: the mean received TCP rate of the worker -> head iperf3
--    runs
-- column head_to_worker_usable_fraction: head -> worker iperf3 rate over the class's derived usable
--    rate
-- column worker_to_head_usable_fraction: worker -> head iperf3 rate over the class's derived usable
--    rate
with measured as (
    select * from fct_deployment_links
    where iperf3_head_to_worker_bytes_per_s is not null
       or iperf3_worker_to_head_bytes_per_s is not null
),

links as (
    select * from dim_link_classes
),

final as (
    select
        measured.campaign,
        measured.link_id,
        measured.label as link_label,
        links.link_class,
        links.label as link_class_label,
        links.sort_order as link_sort_order,
        links.usable_bits_per_s,
        bytes_to_bits(measured.iperf3_head_to_worker_bytes_per_s) as iperf3_head_to_worker_bits_per_s,
        bytes_to_bits(measured.iperf3_worker_to_head_bytes_per_s) as iperf3_worker_to_head_bits_per_s,
        bytes_to_bits(measured.iperf3_head_to_worker_bytes_per_s) / links.usable_bits_per_s
            as head_to_worker_usable_fraction,
        bytes_to_bits(measured.iperf3_worker_to_head_bytes_per_s) / links.usable_bits_per_s
            as worker_to_head_usable_fraction
    from measured
    inner join links on links.link_class = measured.link_class
)

select * from final
order by campaign, link_sort_order, link_id
