// The calendar of the cost model, in one place (docs/methodology.md, "The cost model"): a month of
// runs is 52/12 weeks (the guide's "runs a week x hours a run x 52/12"); a month of committed
// capacity is 8760 / 12 = 730 hours (the default of policy hours_per_month, which catalogs may
// change). The 2 h between 52/12 weeks of 168 h (728 h) and 730 h is the year's 365th day.
#pragma once

namespace gpuadvise {

inline constexpr double kWeeksPerMonth = 52.0 / 12.0;
inline constexpr double kHoursPerMonth = 8760.0 / 12.0;  // policy hours_per_month's default
inline constexpr double kDaysPerMonth = 365.0 / 12.0;
inline constexpr int kHoursPerWeek = 168;
// Days a week over a year (365 / 52): an always-on service runs one "run" a day, so its month is
// kDaysPerMonth days, 730 h, as committed capacity is billed.
inline constexpr double kDaysPerWeek = kDaysPerMonth / kWeeksPerMonth;

// Runs a month from runs a week, and back.
constexpr double runs_per_month(double runs_per_week) { return runs_per_week * kWeeksPerMonth; }
constexpr double runs_per_week_of_month(double runs_per_month) { return runs_per_month * 12.0 / 52.0; }

}  // namespace gpuadvise
