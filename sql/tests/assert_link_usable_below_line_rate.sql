-- check: the derived usable TCP rate is positive and below the line rate
select link_class, line_rate_bits_per_s, usable_bits_per_s
from dim_link_classes
where usable_bits_per_s <= 0 or usable_bits_per_s >= line_rate_bits_per_s
