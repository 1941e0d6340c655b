// What the counters recorder is asked and answers (counted.hpp), on the host alone: which open NVTX ranges are
// a counted launch, and the lines the grader reads (grader/steps/profile.py parses them).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "counters/counted.hpp"

namespace {

using cml::counters::Count;
using cml::counters::CountedLaunch;

TEST_CASE("the launches and metrics asked for are read as the grader writes them")
{
    const std::vector<CountedLaunch> launches =
        cml::counters::parse_launches("R = 1\tstudent\nR = 1\tbaseline\nno tab\n");
    REQUIRE(launches.size() == 2);
    CHECK(launches[0].group == "R = 1");
    CHECK(launches[1].role == "baseline");
    CHECK(cml::counters::parse_launches("\tstudent")[0].group.empty());
    CHECK(cml::counters::parse_metrics("a.sum,,b.sum") == std::vector<std::string>{"a.sum", "b.sum"});
}

TEST_CASE("a counted launch is its role's range innermost, its group's anywhere below")
{
    const std::vector<CountedLaunch> launches = {{"R = 1", "student"}, {"", "baseline"}};
    CHECK(cml::counters::launch_at(launches, {"R = 1", "student"}) == 0);
    CHECK(cml::counters::launch_at(launches, {"R = 1", "other", "student"}) == 0);
    CHECK(cml::counters::launch_at(launches, {"R = 4", "student"}) == -1);  // another group's
    CHECK(cml::counters::launch_at(launches, {"student"}) == -1);           // no group at all
    CHECK(cml::counters::launch_at(launches, {"student", "R = 1"}) == -1);  // the role is not innermost
    CHECK(cml::counters::launch_at(launches, {"baseline"}) == 1);           // a lab without groups
    CHECK(cml::counters::launch_at(launches, {"any", "baseline"}) == 1);
    CHECK(cml::counters::launch_at(launches, {}) == -1);
}

TEST_CASE("each line carries the run's mark, its values in the order asked, no value where CUPTI gave none, and the "
          "kernels launched")
{
    Count count;
    count.launch = 1;
    count.kernels = 2;
    count.values = {3.0, 0.5, std::nan("")};
    count.names = {"_Z6kernelPf", "_Z5other\"x"};
    CHECK(cml::counters::count_line("m4rk", count) ==
          R"(CML COUNTERS m4rk {"launch": 1, "kernels": 2, "dropped": 0, "values": [3, 0.5, null], )"
          R"("names": ["_Z6kernelPf", "_Z5other\"x"]})");
    CHECK(cml::counters::failure_line("m4rk", "cuptiX: \"bad\"\n") ==
          R"(CML COUNTERS m4rk {"failure": "cuptiX: \"bad\"\u000a"})");
}

}  // namespace
