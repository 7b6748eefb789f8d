-- grain: one row per model x scheme x batch size x token rate x link class
-- key: model, scheme, batch_size, tokens_per_s, link_class
-- scope: comparison
-- why: §2.3: the share of the link's usable TCP rate a cell needs, and its class from the declared
-- thresholds (the first class, in order, whose upper bound the share stays under; a class with
-- upper_inclusive also takes a share equal to its bound; a class with no bound takes the rest).
-- column required_bits_per_s: the rate the cell needs: bytes per token x tokens per second x 8
-- column usable_share_fraction: the required rate over the link class's usable rate
-- column feasibility_class: the cell's class: the first, in order, whose upper bound the share
--    stays under
-- column feasibility_label: the class's label
-- column feasibility_symbol: the class's symbol
-- column feasibility_sort_order: the class's order (best first)
with requirements as (
    select * from fct_bandwidth_requirements
),

links as (
    select * from dim_link_classes
),

thresholds as (
    select * from ref_feasibility_thresholds
),

cells as (
    select
        requirements.*,
        links.link_class,
        links.label as link_label,
        links.sort_order as link_sort_order,
        links.usable_bits_per_s,
        requirements.required_bits_per_s / links.usable_bits_per_s as usable_share_fraction
    from requirements
    cross join links
),

final as (
    select
        cells.*,
        thresholds.feasibility_class,
        thresholds.label as feasibility_label,
        thresholds.symbol as feasibility_symbol,
        thresholds.sort_order as feasibility_sort_order
    from cells
    inner join thresholds
        on thresholds.upper_fraction is null
        or cells.usable_share_fraction < thresholds.upper_fraction
        or (thresholds.upper_inclusive and cells.usable_share_fraction = thresholds.upper_fraction)
    qualify row_number() over (
        partition by cells.model, cells.scheme, cells.batch_size, cells.tokens_per_s, cells.link_class
        order by thresholds.sort_order
    ) = 1
)

select * from final
order by model_sort_order, scheme, batch_size, tokens_per_s, link_sort_order
