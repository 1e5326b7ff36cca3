/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INPUT_FILE_H
#define INPUT_FILE_H

#include <string>

namespace ns3
{

/**
 * \ingroup collective-scheduling
 * Throw std::runtime_error "path: is a directory, not a file" if \p path
 * names a directory, which an input stream would open and then read as
 * empty, so that a reader would blame the missing content instead.
 */
void RequireNotDirectory(const std::string& path);

/**
 * Remove a UTF-8 byte-order mark from the start of \p text, the first line
 * of an input file; every reader calls it, so that files saved by editors
 * that write one read alike.
 */
void StripByteOrderMark(std::string& text);

/**
 * The whole of input file \p path, as it is (bytes, no line-end change).
 * \throw std::runtime_error naming \p path if it is a directory, cannot
 *        be opened or cannot be read
 */
std::string ReadInputFile(const std::string& path);

} // namespace ns3

#endif /* INPUT_FILE_H */
