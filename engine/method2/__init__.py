"""Method 2: training compute from the hardware (chips × time × peak × utilization), costs, planning."""
