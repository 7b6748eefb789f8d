-- grain: one row per deployment campaign x link that has an iperf3 measurement
-- key: campaign, link_id
-- why: §2.1 sets the derived usable TCP rate of each Ethernet class beside what iperf3 measured
-- on the §0 deployment's links of that class (fct_deployment_links), as a share of the derived rate.
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
        measured.iperf3_head_to_worker_bytes_per_s * 8 as iperf3_head_to_worker_bits_per_s,
        measured.iperf3_worker_to_head_bytes_per_s * 8 as iperf3_worker_to_head_bits_per_s,
        measured.iperf3_head_to_worker_bytes_per_s * 8 / links.usable_bits_per_s
            as head_to_worker_usable_fraction,
        measured.iperf3_worker_to_head_bytes_per_s * 8 / links.usable_bits_per_s
            as worker_to_head_usable_fraction
    from measured
    inner join links on links.link_class = measured.link_class
)

select * from final
order by campaign, link_sort_order, link_id
