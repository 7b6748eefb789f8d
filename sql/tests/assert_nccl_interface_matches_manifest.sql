-- check: NCCL moved the data over the interface the campaign names (the nccl-tests file's context interface, or NCCL_SOCKET_IFNAME in the manifest's params.env)
-- NCCL_SOCKET_IFNAME is a comma list of name prefixes, "=" for exact names, "^" to exclude
-- (NCCL docs); the interface NCCL reports is from its NET/Socket or NET/IB "Using" line. A
-- mismatch means the figures describe another path than the page says (a VPN bypassed, say).
with expected as (
    select campaign, source_file, net_interface, expected_interface as wanted
    from fct_nccl_transport
    where net_interface is not null
),
judged as (
    select *,
        case
            when starts_with(wanted, '^') then not list_bool_or(list_transform(
                string_split(substr(wanted, 2), ','), lambda p: starts_with(net_interface, trim(p))))
            when starts_with(wanted, '=') then list_contains(
                list_transform(string_split(substr(wanted, 2), ','), lambda p: trim(p)), net_interface)
            else list_bool_or(list_transform(
                string_split(wanted, ','), lambda p: starts_with(net_interface, trim(p))))
        end as matches
    from expected
    where wanted is not null
)
select campaign, source_file, net_interface, wanted
from judged
where not matches
