"""Campaigns are the partitions: one per folder under raw_data/deployments/ and raw_data/p2p/.

Dynamic, so a new folder adds a partition without a code change: ``python -m pipeline.build``
and the raw_data sensor add the folders they find and delete the ones that are gone.
"""
from dagster import DynamicPartitionsDefinition

CAMPAIGNS = DynamicPartitionsDefinition(name="campaign")


def sync_partitions(instance, names: list[str]) -> tuple[list[str], list[str]]:
    """Make the instance's campaign partitions equal ``names``; returns (added, removed)."""
    have = set(instance.get_dynamic_partitions(CAMPAIGNS.name))
    added = sorted(set(names) - have)
    removed = sorted(have - set(names))
    if added:
        instance.add_dynamic_partitions(CAMPAIGNS.name, added)
    for name in removed:
        instance.delete_dynamic_partition(CAMPAIGNS.name, name)
    return added, removed


def run_campaigns(context) -> list[str]:
    """The campaigns a partitioned step of this run covers (one, or a range)."""
    return list(context.partition_keys) if context.has_partition_key_range or \
        context.has_partition_key else []
