-- grain: one row per campaign and tc network setting
-- key: campaign, setting_id
-- Order as a reader scans the table: no shaping, delay only (ascending), rate cap only
-- (loosest first), then both combined.
-- column tc_command: the tc command line the campaign ran for the setting, as its files record it
-- column setting_kind: which knobs the setting turns: default (no shaping), delay (netem only),
--    rate (tbf cap only) or delay+rate
-- column setting_order: the order a reader scans the settings in: no shaping, delay ascending, rate
--    cap loosest first, then both
with settings as (
    select distinct campaign, setting_id, tc_delay_s, tc_rate_bits_per_s, tc_command
    from int_p2p__tc_transfers
),
final as (
    select
        campaign,
        setting_id,
        tc_delay_s,
        tc_rate_bits_per_s,
        tc_command,
        case
            when coalesce(tc_delay_s, 0) = 0 and tc_rate_bits_per_s is null then 'default'
            when tc_rate_bits_per_s is null then 'delay'
            when coalesce(tc_delay_s, 0) = 0 then 'rate'
            else 'delay+rate'
        end as setting_kind,
        row_number() over (partition by campaign order by
            case
                when coalesce(tc_delay_s, 0) = 0 and tc_rate_bits_per_s is null then 0
                when tc_rate_bits_per_s is null then 1
                when coalesce(tc_delay_s, 0) = 0 then 2
                else 3
            end,
            tc_delay_s, tc_rate_bits_per_s desc, setting_id) as setting_order
    from settings
)
select * from final
order by campaign, setting_order
