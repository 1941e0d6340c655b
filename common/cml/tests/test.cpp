// The harness's own tests, on the host alone: what a failed comparison tells the student about the element it
// names first.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"

namespace {

float poison()
{
    unsigned char bytes[sizeof(float)];
    std::memset(bytes, cml::kPoisonByte, sizeof bytes);
    float value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
}

std::string told(float got)
{
    const std::vector<float> output{1.0f, got};
    const std::vector<double> want{1.0, 2.0};
    return cml::compare(output, want, cml::Tolerance{1e-6, 0.0}).describe();
}

}  // namespace

TEST_CASE("an element the kernel never wrote, one it computed as NaN, and one merely wrong are told apart")
{
    const std::string unwritten = told(poison());
    CHECK(unwritten.find("never written") != std::string::npos);
    CHECK(unwritten.find("NaN the kernel computed") == std::string::npos);

    const float zero = 0.0f;
    const float computed = zero / zero;  // what an accumulator that was never set carries through
    const std::string nan = told(computed);
    CHECK(nan.find("NaN the kernel computed") != std::string::npos);
    CHECK(nan.find("never written") == std::string::npos);

    const std::string wrong = told(3.0f);
    CHECK(wrong.find("never written") == std::string::npos);
    CHECK(wrong.find("NaN") == std::string::npos);
    CHECK(wrong.find("got 3, want 2") != std::string::npos);
}

TEST_CASE("the first wrong element is found across the parts compared on several cores")
{
    std::vector<float> output(1 << 22, 1.0f);
    const std::vector<double> want(output.size(), 1.0);
    output[3'000'000] = std::numeric_limits<float>::quiet_NaN();
    output[3'500'000] = poison();
    const cml::Comparison found = cml::compare(output, want, cml::Tolerance{1e-6, 0.0});
    CHECK(found.first_bad == 3'000'000);
    CHECK(found.first_bad_nan);
    CHECK_FALSE(found.first_bad_unwritten);
    CHECK(found.bad_count == 2);
}
