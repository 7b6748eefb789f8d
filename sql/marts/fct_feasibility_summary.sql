-- grain: one row per model x scheme x link class
-- key: model, scheme, link_class
-- scope: comparison
-- why: the key findings and conclusions are generated from these counts, never typed: how many
-- cells of the workload grid fall in each class, the worst class, the peak share, and the lightest
-- cell that leaves the first class / reaches the last class (where the link starts to bind).
-- "First" and "last" class come from the thresholds' sort order, not from their names; ties in
-- the required rate are broken by batch size so the pick is deterministic.
-- column cell_count: the workload cells (batch size x token rate) counted
-- column green_count: cells in the green (feasible) class
-- column yellow_count: cells in the yellow (marginal) class
-- column red_count: cells in the red (saturated) class
-- column not_first_class_count: cells outside the first (best) class
-- column last_class_count: cells in the last (worst) class
-- column all_first_class: true when every cell is in the first class
-- column worst_class: the worst class any cell falls in
-- column worst_label: that class's label
-- column worst_symbol: that class's symbol
-- column peak_batch_size: the batch size of the heaviest cell (highest required rate)
-- column peak_tokens_per_s: the token rate of the heaviest cell
-- column peak_required_bits_per_s: the heaviest cell's required rate
-- column peak_usable_share_fraction: the heaviest cell's share of the class's usable rate
-- column first_binding_batch_size: the batch size of the lightest cell outside the first class
--    (where the link starts to bind)
-- column first_binding_tokens_per_s: that cell's token rate
-- column first_binding_required_bits_per_s: that cell's required rate
-- column first_binding_usable_share_fraction: that cell's share of the usable rate
-- column first_binding_label: that cell's class label
-- column first_saturated_batch_size: the batch size of the lightest cell in the last class
-- column first_saturated_tokens_per_s: that cell's token rate
-- column first_saturated_required_bits_per_s: that cell's required rate
-- column first_saturated_usable_share_fraction: that cell's share of the usable rate
with cells as (
    select * from fct_link_feasibility
),

bounds as (
    select min(sort_order) as first_sort_order, max(sort_order) as last_sort_order
    from ref_feasibility_thresholds
),

flagged as (
    select
        cells.*,
        cells.feasibility_sort_order = bounds.first_sort_order as is_first_class,
        cells.feasibility_sort_order = bounds.last_sort_order as is_last_class,
        struct_pack(r := cells.required_bits_per_s, b := cells.batch_size) as load_order,
        struct_pack(
            batch_size := cells.batch_size,
            tokens_per_s := cells.tokens_per_s,
            required_bits_per_s := cells.required_bits_per_s,
            usable_share_fraction := cells.usable_share_fraction,
            feasibility_class := cells.feasibility_class,
            feasibility_label := cells.feasibility_label
        ) as cell
    from cells
    cross join bounds
),

grouped as (
    select
        model,
        any_value(model_label) as model_label,
        any_value(model_sort_order) as model_sort_order,
        any_value(basis) as basis,
        any_value(campaign) as campaign,
        any_value(source_files) as source_files,
        scheme,
        any_value(scheme_label) as scheme_label,
        link_class,
        any_value(link_label) as link_label,
        any_value(link_sort_order) as link_sort_order,
        count(*) as cell_count,
        count(*) filter (where feasibility_class = 'green') as green_count,
        count(*) filter (where feasibility_class = 'yellow') as yellow_count,
        count(*) filter (where feasibility_class = 'red') as red_count,
        count(*) filter (where not is_first_class) as not_first_class_count,
        count(*) filter (where is_last_class) as last_class_count,
        bool_and(is_first_class) as all_first_class,
        arg_max(feasibility_class, feasibility_sort_order) as worst_class,
        arg_max(feasibility_label, feasibility_sort_order) as worst_label,
        arg_max(feasibility_symbol, feasibility_sort_order) as worst_symbol,
        arg_max(cell, load_order) as peak_cell,
        arg_min(cell, load_order) filter (where not is_first_class) as first_not_first_class_cell,
        arg_min(cell, load_order) filter (where is_last_class) as first_last_class_cell
    from flagged
    group by model, scheme, link_class
),

final as (
    select
        model,
        model_label,
        model_sort_order,
        basis,
        campaign,
        source_files,
        scheme,
        scheme_label,
        link_class,
        link_label,
        link_sort_order,
        cell_count,
        green_count,
        yellow_count,
        red_count,
        not_first_class_count,
        last_class_count,
        all_first_class,
        worst_class,
        worst_label,
        worst_symbol,
        peak_cell.batch_size as peak_batch_size,
        peak_cell.tokens_per_s as peak_tokens_per_s,
        peak_cell.required_bits_per_s as peak_required_bits_per_s,
        peak_cell.usable_share_fraction as peak_usable_share_fraction,
        first_not_first_class_cell.batch_size as first_binding_batch_size,
        first_not_first_class_cell.tokens_per_s as first_binding_tokens_per_s,
        first_not_first_class_cell.required_bits_per_s as first_binding_required_bits_per_s,
        first_not_first_class_cell.usable_share_fraction as first_binding_usable_share_fraction,
        first_not_first_class_cell.feasibility_label as first_binding_label,
        first_last_class_cell.batch_size as first_saturated_batch_size,
        first_last_class_cell.tokens_per_s as first_saturated_tokens_per_s,
        first_last_class_cell.required_bits_per_s as first_saturated_required_bits_per_s,
        first_last_class_cell.usable_share_fraction as first_saturated_usable_share_fraction
    from grouped
)

select * from final
order by model_sort_order, scheme, link_sort_order
