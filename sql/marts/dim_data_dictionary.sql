-- grain: one row per published mart and column
-- key: table_name, column_name
-- scope: inventory
-- The site documents its own tables: every mart's columns with their DuckDB type, the unit the
-- column name declares (project convention: base units, the unit in the name), what the column
-- holds (the "-- column" comment of the SQL that makes it, an upstream model's or
-- sql/glossary.sql's), the mart's grain sentence and the tables it is built from. Columns come from the catalog (the marts
-- built before it), so the pages that describe the warehouse itself list no columns.
with marts as (
    select * from meta_models where layer = 'marts'
),
columns as (
    select table_name, column_name, column_index, data_type, description, described_in
    from meta_columns
),
units as (
    select suffix, unit, priority from ref_column_units
),
matched as (
    select
        columns.table_name,
        columns.column_name,
        units.unit
    from columns
    -- the unit is the name's last unit word, read with a leading "_" (so bytes_per_token
    -- matches _bytes_per_token) and without a direction qualifier (..._head_to_worker)
    join units on ends_with('_' || regexp_replace(columns.column_name,
                                                  '_(head_to_worker|worker_to_head)$', ''),
                            units.suffix)
    qualify row_number() over (
        partition by columns.table_name, columns.column_name
        order by units.priority, length(units.suffix) desc) = 1
),
final as (
    select
        marts.model as table_name,
        marts.grain,
        marts.description,
        marts.upstreams as built_from,
        marts.sql_file,
        columns.column_index,
        columns.column_name,
        columns.data_type,
        matched.unit,
        columns.description as column_description,
        columns.described_in
    from marts
    left join columns on columns.table_name = marts.model
    left join matched
        on matched.table_name = columns.table_name and matched.column_name = columns.column_name
)
select * from final
order by table_name, column_index nulls first
