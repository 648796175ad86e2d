// SPDX-License-Identifier: MIT
// The run's output as it streams in: stdout in the text colour, stderr in red, each decoded as UTF-8 across
// chunk boundaries, appended in batches (a chatty program must not make the window stutter) and capped, with
// a line that says what was left out. Below it, a line of input for programs that read stdin.
#pragma once

#include <QStringDecoder>
#include <QTimer>
#include <QWidget>

class QLineEdit;
class QPlainTextEdit;
class QToolButton;

namespace Cordon::Ui {

class OutputConsole final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputConsole)

public:
    enum class Stream
    {
        Stdout,
        Stderr,
        Note, // the workbench's own words ("Run started in demo"), in a muted colour
    };

    // What the console keeps of one run; the daemon caps each stream (16 MiB by default) and keeps all of it
    // in the history, but a text view with that much is slow to scroll for no gain.
    static constexpr qsizetype MaxShownBytes = 2 * 1024 * 1024;
    static constexpr int FlushIntervalMs = 40;

    explicit OutputConsole(QWidget *parent = nullptr);

    void clear();
    void append(Stream stream, const QByteArray &bytes);
    void appendNote(const QString &text);
    // The run ended: shows what is still buffered and, when output was left out, says so once.
    void finishRun(const QString &runId);
    // Input is open while a run reads stdin.
    void setInputOpen(bool open);

    // Everything shown, for tests and copy.
    QString plainText() const;
    QLineEdit *inputLine() const { return m_input; }

Q_SIGNALS:
    // A line the user typed, with its newline.
    void inputSubmitted(const QByteArray &data);
    void endOfInputRequested();

private:
    void flush();
    void submitInput();

    QPlainTextEdit *m_view;
    QLineEdit *m_input;
    QToolButton *m_send;
    QToolButton *m_eof;
    QTimer m_flushTimer;
    QStringDecoder m_stdoutDecoder{QStringDecoder::Utf8};
    QStringDecoder m_stderrDecoder{QStringDecoder::Utf8};
    struct Pending
    {
        Stream stream;
        QString text;
    };
    QList<Pending> m_pending;
    qsizetype m_shownBytes = 0;
    qsizetype m_droppedBytes = 0;
};

} // namespace Cordon::Ui
