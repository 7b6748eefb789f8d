-- grain: one row per feasibility class (green, yellow, red)
-- key: feasibility_class
-- why: the legend of the feasibility matrices; each class's lower bound is the previous upper bound.
-- column feasibility_class: the class's key (green, yellow, red in feasibility_thresholds.csv)
-- column label: the class as the pages print it (feasible, marginal, saturated)
-- column symbol: the text symbol the tables print beside the label (no emoji font needed)
-- column lower_fraction: the share of the usable rate where the class starts (the previous class's
--    upper bound; empty for the first)
-- column lower_inclusive: whether a share exactly on lower_fraction belongs to this class
-- column upper_fraction: the share of the usable rate where the class ends (empty for the last)
-- column upper_inclusive: whether a share exactly on upper_fraction belongs to this class
-- column sort_order: the order of the classes, best first
with source as (
    select * from ref_feasibility_thresholds
),

final as (
    select
        feasibility_class,
        label,
        symbol,
        lag(upper_fraction) over (order by sort_order) as lower_fraction,
        not coalesce(lag(upper_inclusive) over (order by sort_order), false) as lower_inclusive,
        upper_fraction,
        upper_inclusive,
        sort_order
    from source
)

select * from final
order by sort_order
