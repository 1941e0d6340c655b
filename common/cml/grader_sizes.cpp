#include "cml/grader_sizes.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cml {

namespace {

std::vector<int> parse_dimensions(const std::string& entry)
{
    std::vector<int> dimensions;
    std::stringstream parts(entry);
    for (std::string part; std::getline(parts, part, 'x');) {
        std::size_t used = 0;
        const int value = std::stoi(part, &used);
        if (value < 0 || part.find_first_not_of(" \t", used) != std::string::npos)
            throw std::invalid_argument("CML_GRADER_SIZES: not a size: '" + entry + "'");
        dimensions.push_back(value);
    }
    return dimensions;
}

}  // namespace

std::vector<std::vector<int>> grader_sizes()
{
    static const std::vector<std::vector<int>> sizes = [] {
        std::vector<std::vector<int>> parsed;
        const char* text = std::getenv("CML_GRADER_SIZES");
        std::stringstream entries(text ? text : "");
        for (std::string entry; std::getline(entries, entry, ';');)
            if (entry.find_first_not_of(" \t") != std::string::npos) parsed.push_back(parse_dimensions(entry));
        return parsed;
    }();
    return sizes;
}

std::vector<std::vector<int>> grader_sizes(std::size_t dimensions, const char* format)
{
    for (const std::vector<int>& size : grader_sizes())
        if (size.size() != dimensions)
            throw std::invalid_argument(std::string("CML_GRADER_SIZES: this lab's sizes are ") + format);
    return grader_sizes();
}

}  // namespace cml
