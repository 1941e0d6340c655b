#include "profile_report.hpp"

#include <cstdio>
#include <map>
#include <sstream>

namespace cml_emu {
namespace {

const char* op_name(const LineCounters& c) { return c.atomic ? "atomic" : c.store ? "store" : "load"; }

const char* space_name(Space space)
{
    return space == Space::global ? "global" : space == Space::shared ? "shared" : "constant";
}

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

double per_request(unsigned long long count, const LineCounters& c)
{
    return c.requests ? double(count) / double(c.requests) : 0.0;
}

std::map<std::string, unsigned long long> metric_totals(const KernelReport& kernel)
{
    std::map<std::string, unsigned long long> metrics = {
        {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0},
        {"smsp__inst_executed_op_shared_ld.sum", 0}, {"smsp__inst_executed_op_shared_st.sum", 0},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
        {"cml_emu__constant_requests.sum", 0}, {"cml_emu__constant_addresses.sum", 0},
        {"cml_emu__constant_serialised_requests.sum", 0},
        {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 0}, {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0},
        {"smsp__sass_inst_executed_op_shared_atom.sum", 0}, {"launch__block_size", kernel.shapes.block_size}, {"launch__grid_size", kernel.shapes.grid_size},
        {"launch__shared_mem_per_block_dynamic", kernel.shapes.dynamic_shared}};
    for (const LineRow& row : kernel.rows) {
        const LineCounters& c = row.counters;
        const std::string op = c.store ? "st" : "ld";
        if (c.atomic) {
            // A global atomic whose old value is unused is a reduction (RED) on a GPU, the form every lab's atomics
            // take; one whose value is used is an ATOM there (..._op_atom), which the emulator does not tell apart:
            // every global atomic is counted as a RED, and op_atom stays 0, so that their sum is every one.
            if (c.space == Space::global) metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] += c.requests;
            if (c.space == Space::shared) metrics["smsp__sass_inst_executed_op_shared_atom.sum"] += c.requests;
        } else if (c.space == Space::global) {
            metrics["l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum"] += c.requests;
            metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum"] += c.units;
        } else if (c.space == Space::shared) {
            metrics["smsp__inst_executed_op_shared_" + op + ".sum"] += c.requests;
            metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum"] += c.units;
            metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_" + op + ".sum"] += c.units - c.ideal;
        } else if (!c.store) {
            metrics["cml_emu__constant_requests.sum"] += c.requests;
            metrics["cml_emu__constant_addresses.sum"] += c.units;
            metrics["cml_emu__constant_serialised_requests.sum"] += c.serialised;
        }
    }
    return metrics;
}

std::string json_line(const LineRow& row)
{
    const LineCounters& c = row.counters;
    std::ostringstream json;
    json << "{\"file\": " << json_string(row.file) << ", \"line\": " << row.line << ", \"space\": \""
         << space_name(c.space) << "\", \"op\": \"" << op_name(c)
         << "\", \"bytes_per_lane\": " << c.size << ", \"requests\": " << c.requests;
    if (c.atomic) {
        // requests alone: sectors and wavefronts measure the loads and stores
    } else if (c.space == Space::global) {
        json << ", \"sectors\": " << c.units << ", \"sectors_per_request\": " << per_request(c.units, c)
             << ", \"max_sectors\": " << c.max_units;
    } else if (c.space == Space::shared) {
        json << ", \"wavefronts\": " << c.units << ", \"bank_conflicts\": " << c.units - c.ideal
             << ", \"bank_conflicts_per_request\": " << per_request(c.units - c.ideal, c)
             << ", \"max_ways\": " << c.max_units;
    } else {
        json << ", \"addresses\": " << c.units << ", \"addresses_per_request\": " << per_request(c.units, c)
             << ", \"serialised_requests\": " << c.serialised << ", \"max_addresses\": " << c.max_units;
    }
    if (c.worst.found()) json << ", \"worst\": " << worst_request_json(c.worst);
    json << "}";
    return json.str();
}

std::string json_kernel(const KernelReport& kernel)
{
    std::ostringstream json;
    json << "\n    {\n      \"name\": " << json_string(kernel.name) << ",\n      \"nvtx_range\": "
         << json_string(kernel.range) << ",\n      \"launches\": " << kernel.launches << ",\n      \"metrics\": {";
    bool first = true;
    for (const auto& [name, value] : metric_totals(kernel)) {
        json << (first ? "" : ",") << "\n        " << json_string(name) << ": " << value;
        first = false;
    }
    json << "\n      },\n      \"lines\": [";
    first = true;
    for (const LineRow& row : kernel.rows) {
        json << (first ? "" : ",") << "\n        " << json_line(row);
        first = false;
    }
    json << "\n      ]\n    }";
    return json.str();
}

std::string table_line(const LineRow& row)
{
    const LineCounters& c = row.counters;
    char text[256] = "";
    if (c.atomic) {
        // requests alone, as in the JSON
    } else if (c.space == Space::global) {
        std::snprintf(text, sizeof text, "%5.2f sectors per request (at most %u)", per_request(c.units, c),
                      c.max_units);
    } else if (c.space == Space::shared) {
        std::snprintf(text, sizeof text, "%5.2f bank conflicts per request, %u-way at worst",
                      per_request(c.units - c.ideal, c), c.max_units);
    } else {
        std::snprintf(text, sizeof text, "%5.2f addresses per request (at most %u)%s", per_request(c.units, c),
                      c.max_units, c.serialised ? ": serialised" : ": broadcast");
    }
    const std::size_t slash = row.file.rfind('/');
    const std::string file = row.file.substr(slash == std::string::npos ? 0 : slash + 1);
    char head[256];
    std::snprintf(head, sizeof head, "=========   %s:%-4d %-8s %-6s %10llu requests  ", file.c_str(), row.line,
                  space_name(c.space), op_name(c), c.requests);
    return std::string(head) + text + "\n";
}

}  // namespace

std::string json_report(const std::vector<KernelReport>& kernels)
{
    std::string json = "{\n  \"tool\": \"cml-emu\",\n  \"version\": 1,\n  \"kernels\": [";
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        if (k) json += ",";
        json += json_kernel(kernels[k]);
    }
    return json + "\n  ]\n}\n";
}

std::string table_report(const std::vector<KernelReport>& kernels)
{
    std::ostringstream table;
    table << "========= CML-EMU counters per source line (requests are warp-wide executions of a memory instruction)\n";
    for (const KernelReport& kernel : kernels) {
        table << "=========\n========= " << kernel.name << ", " << kernel.launches << " launch"
              << (kernel.launches == 1 ? "" : "es") << (kernel.range.empty() ? "" : " in NVTX range " + kernel.range)
              << "\n";
        for (const LineRow& row : kernel.rows) table << table_line(row);
    }
    return table.str();
}

}  // namespace cml_emu
