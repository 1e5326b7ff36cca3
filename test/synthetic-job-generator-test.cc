/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include <gtest/gtest.h>
