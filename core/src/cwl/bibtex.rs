//! The BibTeX of cwl_eval 1.0.12 (`-b BIB_FILE`): the entry of cwl_eval itself, then one per
//! metric class, each exactly as cwl_eval writes it (its indentation and trailing spaces
//! included: the file must be byte for byte cwl_eval's). Bibliographic records of the papers,
//! taken from cwl_eval (MIT licence, Azzopardi, Thomas, Moffat, Zuccon); tests/test_cwl.py checks
//! every one against the installed cwl_eval's classes.

use super::Rule;

pub const TOOL: &str = r##"
        @inproceedings{azzopardi2019cwl,
        author = {Azzopardi, Leif and Thomas, Paul and Moffat, Alistair}
        title = {cwl\_eval: An Evaluation Tool for Information Retrieval},
        booktitle = {Proc. of the 42nd International ACM SIGIR Conference},
        series = {SIGIR '19},
        year = {2019} 
        }
        "##;
pub const HARMAN_1992_ESIR: &str = r##"
        @article{Harman:1992:ESIR,
        author = {Donna Harman},
        title = {Evaluation Issues in Information Retrieval},
        journal = {Information Processing and Management},
        volume = {28},
        number = {4},
        pages = {439 - -440},
        year = {1992},
        }
        
        "##;
pub const HARMAN_1992_ESIR_INDENTED: &str = r##"
            @article{Harman:1992:ESIR,
            author = {Donna Harman},
            title = {Evaluation Issues in Information Retrieval},
            journal = {Information Processing and Management},
            volume = {28},
            number = {4},
            pages = {439 - -440},
            year = {1992},
            }
        "##;
pub const ZHANG_2017_EWS_3077136_3080841: &str = r##"
        @inproceedings{Zhang:2017:EWS:3077136.3080841,
        author = {Zhang, Fan and Liu, Yiqun and Li, Xin and Zhang, Min and Xu, Yinghui and Ma, Shaoping},
        title = {Evaluating Web Search with a Bejeweled Player Model},
        booktitle = {Proceedings of the 40th International ACM SIGIR Conference on Research and Development in Information Retrieval},
        series = {SIGIR '17},
        year = {2017},
        location = {Shinjuku, Tokyo, Japan},
        pages = {425--434},
        url = {http://doi.acm.org/10.1145/3077136.3080841},
        } 
        "##;
pub const JARVELIN_2002_CGE_582415_582418: &str = r##"
        @article{Jarvelin:2002:CGE:582415.582418,
        author = {J"{a}rvelin, Kalervo and Kek"{a}l"{a}inen, Jaana},
        title = {Cumulated Gain-based Evaluation of IR Techniques},
        journal = {ACM Trans. Inf. Syst.},
        volume = {20},
        number = {4},
        year = {2002},
        pages = {422--446},
        numpages = {25},
        url = {http://doi.acm.org/10.1145/582415.582418},
        }
        "##;
pub const AZZOPARDI_2018_MUS_3209978_3210027: &str = r##"@inproceedings{Azzopardi:2018:MUS:3209978.3210027,author = {Azzopardi, Leif and Thomas, Paul and Craswell, Nick},title = {Measuring the Utility of Search Engine Result Pages: An Information Foraging Based Measure},booktitle = {The 41st International ACM SIGIR Conference on Research \&\#38; Development in Information Retrieval},series = {SIGIR '18},year = {2018},location = {Ann Arbor, MI, USA},pages = {605--614},numpages = {10},} "##;
pub const AZZOPARDI_2018_MUS_3209978_3210027_INDENTED: &str = r##"
        @inproceedings{Azzopardi:2018:MUS:3209978.3210027,
        author = {Azzopardi, Leif and Thomas, Paul and Craswell, Nick},
        title = {Measuring the Utility of Search Engine Result Pages: An Information Foraging Based Measure},
        booktitle = {The 41st International ACM SIGIR Conference on Research \&\#38; Development in Information Retrieval},
        series = {SIGIR '18},
        year = {2018},
        location = {Ann Arbor, MI, USA},
        pages = {605--614},
        numpages = {10},
        } 
        "##;
pub const MOFFAT_2012_MMI_2407085_2407092: &str = r##"
        @inproceedings{Moffat:2012:MMI:2407085.2407092,
        author = {Moffat, Alistair and Scholer, Falk and Thomas, Paul},
        title = {Models and Metrics: IR Evaluation As a User Process},
        booktitle = {Proceedings of the Seventeenth Australasian Document Computing Symposium},
        series = {ADCS '12},
        year = {2012},
        location = {Dunedin, New Zealand},
        pages = {47--54},
        url = {http://doi.acm.org/10.1145/2407085.2407092},
        } 
        "##;
pub const MOFFAT_2015_IAM_2838931_2838938: &str = r##"
        @inproceedings{Moffat:2015:IAM:2838931.2838938,
        author = {Moffat, Alistair and Bailey, Peter and Scholer, Falk and Thomas, Paul},
        title = {INST: An Adaptive Metric for Information Retrieval Evaluation},
        booktitle = {Proceedings of the 20th Australasian Document Computing Symposium},
        series = {ADCS '15},
        year = {2015},
        location = {Parramatta, NSW, Australia},
        pages = {5:1--5:4},
        articleno = {5},
        numpages = {4},
        url = {http://doi.acm.org/10.1145/2838931.2838938}
        } 
        "##;
pub const EMPTY: &str = r##""##;
pub const AZZOPARDI_2021_ECE_3471158_3472239: &str = r##"
        @inproceedings{Azzopardi:2021:ECE:3471158.3472239,
        author = {Azzopardi, Leif and Mackenzie, Joel and Moffat, Alistair},
        title = {{ERR} is not {C/W/L}: Exploring the Relationship Between Expected Reciprocal Rank and Other Metrics},
        booktitle = {Proceedings of the 2021 ACM SIGIR on International Conference on Theory of Information Retrieval},
        series = {ICTIR '21},
        location = {Virtual Event, Canada},
        url = {https://doi.org/10.1145/3471158.3472239},
        doi = {3471158.3472239},
        }
        "##;
pub const RIJSBERGEN_1979_IR: &str = r##"
        @misc{rijsbergen:1979:ir,
        title={Information Retrieval.},
        author={Van Rijsbergen, Cornelis J},
        year={1979},
        publisher={USA: Butterworth-Heinemann}
        }
        "##;
pub const MOFFAT_2008_RPM_1416950_1416952: &str = r##"
        @article{Moffat:2008:RPM:1416950.1416952,
        author = {Moffat, Alistair and Zobel, Justin},
        title = {Rank-biased Precision for Measurement of Retrieval Effectiveness},
        journal = {ACM Trans. Inf. Syst.},
        volume = {27},
        number = {1},
        year = {2008},
        pages = {2:1--2:27},
        articleno = {2},
        numpages = {27},
        url = {http://doi.acm.org/10.1145/1416950.1416952},
        } 
        "##;
pub const KANTOR2000TREC: &str = r##"
        @article{kantor2000trec,
        title={The TREC-5 Confusion Track},
        author={Kantor, Paul and Voorhees, Ellen},
        journal={Information Retrieval},
        volume={2},
        number={2-3},
        pages={165--176},
        year={2000}
        }
        "##;
pub const AZZOPARDI_2014_MIE_2600428_2609574: &str = r##"
        @inproceedings{Azzopardi:2014:MIE:2600428.2609574,
        author = {Azzopardi, Leif},
        title = {Modelling Interaction with Economic Models of Search},
        booktitle = {Proceedings of the 37th International ACM SIGIR Conference 
                on Research \&\#38; Development in Information Retrieval},
        year = {2014},
        location = {Gold Coast, Queensland, Australia},
        pages = {3--12},
        numpages = {10},
        url = {http://doi.acm.org/10.1145/2600428.2609574},
        } 
        "##;
pub const SMUCKER_2012_TCE_2348283_2348300: &str = r##"
        @inproceedings{Smucker:2012:TCE:2348283.2348300,
        author = {Smucker, Mark D. and Clarke, Charles L.A.},
        title = {Time-based Calibration of Effectiveness Measures},
        booktitle = {Proceedings of the 35th International ACM SIGIR Conference
         on Research and Development in Information Retrieval},
        series = {SIGIR '12},
        year = {2012},
        location = {Portland, Oregon, USA},
        pages = {95--104},
        numpages = {10},
        url = {http://doi.acm.org/10.1145/2348283.2348300},
        } 
        "##;
pub const SAKAI_2013_SRR_2484028_2484031: &str = r##"
        @inproceedings{Sakai:2013:SRR:2484028.2484031,
        author = {Sakai, Tetsuya and Dou, Zhicheng},
        title = {Summaries, Ranked Retrieval and Sessions: A Unified Framework for Information Access Evaluation}
        booktitle = {Proceedings of the 36th International ACM SIGIR Conference on Research and Development in Information Retrieval},
        series = {SIGIR '13},
        year = {2013},
        location = {Dublin, Ireland},
        pages = {473--482},
        numpages = {10},
        url = {http://doi.acm.org/10.1145/2484028.2484031}
        } 
        "##;

/// The BibTeX a metric class carries (the base class none: an empty entry, written as such).
pub fn of(rule: Rule) -> &'static str {
    match rule {
        Rule::Undefined => EMPTY,
        Rule::Precision => RIJSBERGEN_1979_IR,
        Rule::Rbp => MOFFAT_2008_RPM_1416950_1416952,
        Rule::Rr => KANTOR2000TREC,
        Rule::Ap => HARMAN_1992_ESIR,
        Rule::TrAp => HARMAN_1992_ESIR_INDENTED,
        Rule::Ndcg => JARVELIN_2002_CGE_582415_582418,
        Rule::Inst => MOFFAT_2015_IAM_2838931_2838938,
        Rule::Insq => MOFFAT_2012_MMI_2407085_2407092,
        Rule::Tbg => SMUCKER_2012_TCE_2348283_2348300,
        Rule::BpmStatic | Rule::BpmDynamic => ZHANG_2017_EWS_3077136_3080841,
        Rule::UMeasure => SAKAI_2013_SRR_2484028_2484031,
        Rule::IftGoal | Rule::IftRate => AZZOPARDI_2018_MUS_3209978_3210027,
        Rule::IftGoalRate => AZZOPARDI_2018_MUS_3209978_3210027_INDENTED,
        Rule::Nerr8 | Rule::Nerr9 | Rule::Nerr10 | Rule::Nerr11 => {
            AZZOPARDI_2021_ECE_3471158_3472239
        }
        Rule::Npv => TOOL, // cwl_eval's NPV cites cwl_eval itself
        Rule::Set => AZZOPARDI_2014_MIE_2600428_2609574,
    }
}

/// The BibTeX file of a list of metrics: cwl_eval's entry, then each metric's, every text
/// once (in order of first use), each followed by a newline.
pub fn file(rules: impl IntoIterator<Item = Rule>) -> String {
    let mut entries = vec![TOOL];
    for entry in rules.into_iter().map(of) {
        if !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries.iter().map(|e| format!("{e}\n")).collect()
}
