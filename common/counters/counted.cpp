#include "counters/counted.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace cml::counters {

std::vector<CountedLaunch> parse_launches(const std::string& listed)
{
    std::vector<CountedLaunch> launches;
    std::istringstream lines(listed);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t tab = line.find('\t');
        if (tab != std::string::npos) launches.push_back({line.substr(0, tab), line.substr(tab + 1)});
    }
    return launches;
}

std::vector<std::string> parse_metrics(const std::string& listed)
{
    std::vector<std::string> metrics;
    std::istringstream names(listed);
    for (std::string name; std::getline(names, name, ',');)
        if (!name.empty()) metrics.push_back(name);
    return metrics;
}

int launch_at(const std::vector<CountedLaunch>& launches, const std::vector<std::string>& stack)
{
    if (stack.empty()) return -1;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        const CountedLaunch& l = launches[i];
        if (stack.back() != l.role) continue;
        if (l.group.empty() || std::find(stack.begin(), stack.end() - 1, l.group) != stack.end() - 1)
            return static_cast<int>(i);
    }
    return -1;
}

namespace {

// JSON's string, for a failure's words: quotes, backslashes and control characters escaped.
std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string number(double value)
{
    if (!std::isfinite(value)) return "null";
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

}  // namespace

std::string count_line(const std::string& mark, const Count& count)
{
    std::ostringstream line;
    line << "CML COUNTERS " << mark << " {\"launch\": " << count.launch << ", \"kernels\": " << count.kernels
         << ", \"dropped\": " << count.dropped << ", \"values\": [";
    for (std::size_t i = 0; i < count.values.size(); ++i) line << (i ? ", " : "") << number(count.values[i]);
    line << "], \"names\": [";
    for (std::size_t i = 0; i < count.names.size(); ++i) line << (i ? ", " : "") << quoted(count.names[i]);
    line << "]}";
    return line.str();
}

std::string failure_line(const std::string& mark, const std::string& failure)
{
    return "CML COUNTERS " + mark + " {\"failure\": " + quoted(failure) + "}";
}

}  // namespace cml::counters
