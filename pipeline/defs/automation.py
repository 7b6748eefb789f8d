"""When the pipeline runs by itself: the nightly schedule and the raw_data sensor."""
from dagster import Definitions, definitions

from pipeline.orchestration.assembly import automation


@definitions
def defs() -> Definitions:
    return automation()
