-- grain: one row per feasibility class (green, yellow, red)
-- key: feasibility_class
-- why: the legend of the feasibility matrices; each class's lower bound is the previous upper bound.
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
