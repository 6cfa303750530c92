/*
 * tests/test_sysinfo.c - pins "System and version" (docs/SEMANTICS.md):
 * package versions (aclrt is the runtime package), CANN attributes, the SoC
 * name and compatibility with it, the saturating half-precision conversions
 * and data type sizes: the flows of the system-info and cross-version
 * samples.
 */
#include "check.h"

#include <float.h>
#include <math.h>
#include <string.h>

static float f32_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_of_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Runs before aclInit: the SoC name needs no initialization and starts nothing. */
TEST(soc_name_is_the_default_profiles_before_init_and_starts_nothing)
{
    const char *name = aclrtGetSocName();
    CHECK(name != NULL);
    CHECK_EQ(0, strcmp(name, "Ascend910B1"));
    CHECK(aclrtxGetBackendName() == NULL); /* the runtime did not start */
}

TEST(runtime_package_version_string_is_aclrts_own_version)
{
    char expected[ACL_PKG_VERSION_MAX_SIZE];
    snprintf(expected, sizeof expected, "%d.%d.%d", ACLRT_VERSION_MAJOR, ACLRT_VERSION_MINOR, ACLRT_VERSION_PATCH);
    char pkg[] = "runtime";
    char version[ACL_PKG_VERSION_MAX_SIZE];
    memset(version, 'x', sizeof version);
    CHECK_OK(aclsysGetVersionStr(pkg, version));
    CHECK_STR_CONTAINS(version, expected);
    CHECK_EQ(strlen(expected), strlen(version));
}

TEST(runtime_package_version_number_weighs_major_minor_and_patch)
{
    char pkg[] = "runtime";
    int32_t num = -1;
    CHECK_OK(aclsysGetVersionNum(pkg, &num));
    CHECK_EQ(ACLRT_VERSION_MAJOR * 10000000 + ACLRT_VERSION_MINOR * 100000 + ACLRT_VERSION_PATCH * 1000, num);
}

TEST(other_packages_are_not_installed)
{
    const char *names[] = {"driver", "firmware", "compiler", "opp", "Runtime", "runtime_x", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char pkg[32], version[ACL_PKG_VERSION_MAX_SIZE] = "untouched";
        snprintf(pkg, sizeof pkg, "%s", names[i]);
        int32_t num = 7;
        CHECK_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, version));
        CHECK_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionNum(pkg, &num));
        CHECK_EQ(0, strcmp(version, "untouched"));
        CHECK_EQ(7, num);
    }
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not installed");
}

TEST(version_calls_reject_null_arguments)
{
    char pkg[] = "runtime";
    char version[ACL_PKG_VERSION_MAX_SIZE];
    int32_t num;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(NULL, version));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(pkg, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(NULL, &num));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(pkg, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclsysGetVersionNum");
}

TEST(cann_attribute_list_holds_inf_nan_and_each_listed_attribute_is_one)
{
    const aclCannAttr *list = NULL;
    size_t num = 99;
    CHECK_OK(aclGetCannAttributeList(&list, &num));
    CHECK(list != NULL);
    CHECK_EQ(1, num);
    CHECK_EQ(ACL_CANN_ATTR_INF_NAN, list[0]);
    for (size_t i = 0; i < num; i++) {
        int32_t v = -1;
        CHECK_OK(aclGetCannAttribute(list[i], &v));
        CHECK_EQ(1, v);
    }
}

TEST(bf16_and_jit_compile_are_not_available)
{
    aclCannAttr absent[] = {ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
    for (int i = 0; i < 2; i++) {
        int32_t v = -1;
        CHECK_OK(aclGetCannAttribute(absent[i], &v));
        CHECK_EQ(0, v);
    }
}

TEST(an_unknown_cann_attribute_and_null_outputs_are_invalid_param)
{
    aclCannAttr wild[] = {ACL_CANN_ATTR_UNDEFINED, (aclCannAttr)3, (aclCannAttr)99};
    int32_t v = 5;
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(wild[i], &v));
    CHECK_EQ(5, v);
    const aclCannAttr *list;
    size_t num;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(NULL, &num));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(&list, NULL));
}

TEST(soc_name_stays_the_profiles_after_init)
{
    const char *name = aclrtGetSocName(), *backend = aclrtxGetBackendName();
    CHECK(name != NULL && backend != NULL);
    CHECK_EQ(0, strcmp(name, "Ascend910B1"));
    CHECK_EQ(0, strcmp(backend, "host"));
}

TEST(code_built_for_the_own_soc_only_is_compatible)
{
    int32_t ok = -1;
    CHECK_OK(aclrtCheckArchCompatibility(aclrtGetSocName(), &ok));
    CHECK_EQ(1, ok);
    const char *others[] = {"Ascend910B3", "Ascend910B",  "Ascend910B1x", "Ascend950PR",
                            "aclrt-host",  "aclrt-cuda", "x"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        ok = -1;
        CHECK_OK(aclrtCheckArchCompatibility(others[i], &ok));
        CHECK_EQ(0, ok);
    }
}

TEST(arch_compatibility_rejects_null_and_empty_names)
{
    int32_t ok = 7;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility(NULL, &ok));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("", &ok));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("aclrt-host", NULL));
    CHECK_EQ(7, ok);
}

TEST(half_conversion_of_exact_values_round_trips)
{
    struct {
        float f;
        uint16_t h;
    } exact[] = {
        {1.625f, 0x3E80}, {0.0f, 0x0000},   {-0.0f, 0x8000},         {1.0f, 0x3C00},          {-2.5f, 0xC100},
        {65504.0f, 0x7BFF}, {-65504.0f, 0xFBFF}, {0x1p-14f, 0x0400}, {0x1p-24f, 0x0001}, {0x3FFp-24f, 0x03FF},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        CHECK_EQ(exact[i].h, aclFloatToFloat16(exact[i].f));
        CHECK_EQ(bits_of_f32(exact[i].f), bits_of_f32(aclFloat16ToFloat(exact[i].h)));
    }
}

TEST(every_finite_half_survives_a_round_trip_through_float)
{
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        if (((h >> 10) & 0x1F) == 0x1F)
            continue; /* Inf and NaN patterns: no half converts back to them */
        CHECK_EQ(h, aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h)));
    }
}

TEST(float_to_half_rounds_to_nearest_even)
{
    CHECK_EQ(0x3C00, aclFloatToFloat16(1.0f + 0x1p-11f));         /* halfway, down to even */
    CHECK_EQ(0x3C02, aclFloatToFloat16(1.0f + 3 * 0x1p-11f));     /* halfway, up to even */
    CHECK_EQ(0x3C01, aclFloatToFloat16(1.0f + 0x1p-11f + 0x1p-20f)); /* above halfway */
    CHECK_EQ(0x4000, aclFloatToFloat16(2.0f - 0x1p-12f));         /* the carry reaches the exponent */
    CHECK_EQ(0x0000, aclFloatToFloat16(0x1p-25f));                /* half the smallest subnormal: to even, 0 */
    CHECK_EQ(0x0001, aclFloatToFloat16(0x1.8p-25f));              /* above it: the smallest subnormal */
    CHECK_EQ(0x0000, aclFloatToFloat16(0x1p-26f));                /* below: zero */
    CHECK_EQ(0x8000, aclFloatToFloat16(-0x1p-30f));               /* the sign stays */
    CHECK_EQ(0x0400, aclFloatToFloat16(0x1p-14f - 0x1p-26f));     /* a subnormal that rounds up to normal */
}

TEST(float_to_half_saturates_beyond_the_range_and_for_inf_and_nan)
{
    CHECK_EQ(0x7BFF, aclFloatToFloat16(65519.0f)); /* rounds to 65504 */
    CHECK_EQ(0x7BFF, aclFloatToFloat16(65520.0f)); /* would round to 65536 */
    CHECK_EQ(0x7BFF, aclFloatToFloat16(1e10f));
    CHECK_EQ(0x7BFF, aclFloatToFloat16(FLT_MAX));
    CHECK_EQ(0x7BFF, aclFloatToFloat16(INFINITY));
    CHECK_EQ(0xFBFF, aclFloatToFloat16(-INFINITY));
    CHECK_EQ(0xFBFF, aclFloatToFloat16(-1e10f));
    CHECK_EQ(0x7BFF, aclFloatToFloat16(f32_from_bits(0x7FC00000u))); /* NaN */
}

TEST(half_to_float_reads_the_all_ones_exponent_as_a_number)
{
    CHECK(aclFloat16ToFloat(0x7C00) == 65536.0f);
    CHECK(aclFloat16ToFloat(0xFC00) == -65536.0f);
    CHECK(aclFloat16ToFloat(0x7E00) == 98304.0f);
    CHECK(aclFloat16ToFloat(0x7FFF) == 131008.0f);
}

TEST(data_type_sizes_are_the_element_widths)
{
    struct {
        aclDataType t;
        size_t size;
    } table[] = {
        {ACL_FLOAT, 4},         {ACL_FLOAT16, 2},      {ACL_INT8, 1},         {ACL_INT32, 4},         {ACL_UINT8, 1},
        {ACL_INT16, 2},         {ACL_UINT16, 2},       {ACL_UINT32, 4},       {ACL_INT64, 8},         {ACL_UINT64, 8},
        {ACL_DOUBLE, 8},        {ACL_BOOL, 1},         {ACL_COMPLEX64, 8},    {ACL_COMPLEX128, 16},   {ACL_BF16, 2},
        {ACL_COMPLEX32, 4},     {ACL_HIFLOAT8, 1},     {ACL_FLOAT8_E5M2, 1},  {ACL_FLOAT8_E4M3FN, 1}, {ACL_FLOAT8_E8M0, 1},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        CHECK_EQ(table[i].size, aclDataTypeSize(table[i].t));
}

TEST(types_narrower_than_a_byte_take_one_byte)
{
    aclDataType narrow[] = {ACL_INT4, ACL_UINT1, ACL_FLOAT6_E3M2, ACL_FLOAT6_E2M3, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        CHECK_EQ(1, aclDataTypeSize(narrow[i]));
}

TEST(string_undefined_and_unknown_data_types_have_size_zero)
{
    aclDataType none[] = {ACL_STRING, ACL_DT_UNDEFINED, (aclDataType)5, (aclDataType)14, (aclDataType)42,
                          (aclDataType)-7};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CHECK_EQ(0, aclDataTypeSize(none[i]));
}

int main(void)
{
    RUN(soc_name_is_the_default_profiles_before_init_and_starts_nothing);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(runtime_package_version_string_is_aclrts_own_version);
    RUN(runtime_package_version_number_weighs_major_minor_and_patch);
    RUN(other_packages_are_not_installed);
    RUN(version_calls_reject_null_arguments);
    RUN(cann_attribute_list_holds_inf_nan_and_each_listed_attribute_is_one);
    RUN(bf16_and_jit_compile_are_not_available);
    RUN(an_unknown_cann_attribute_and_null_outputs_are_invalid_param);
    RUN(soc_name_stays_the_profiles_after_init);
    RUN(code_built_for_the_own_soc_only_is_compatible);
    RUN(arch_compatibility_rejects_null_and_empty_names);
    RUN(half_conversion_of_exact_values_round_trips);
    RUN(every_finite_half_survives_a_round_trip_through_float);
    RUN(float_to_half_rounds_to_nearest_even);
    RUN(float_to_half_saturates_beyond_the_range_and_for_inf_and_nan);
    RUN(half_to_float_reads_the_all_ones_exponent_as_a_number);
    RUN(data_type_sizes_are_the_element_widths);
    RUN(types_narrower_than_a_byte_take_one_byte);
    RUN(string_undefined_and_unknown_data_types_have_size_zero);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("sysinfo");
}
